import FrameCore

/// Outlines every face found in the frame, optionally with its landmarks (eyes, nose,
/// mouth corners) and its track ID, as a face-detection demo draws them.
public struct FaceBox: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "facebox", category: .detection, summary: "Outline each face, with its landmarks and track ID.",
        parameters: [
            .color(Key.color, default: (0.2, 1, 0.4, 1), help: "Outline colour: #RRGGBB or r,g,b in 0…1."),
            .float(Key.thickness, default: 2, min: 1, max: 40, slider: 1...12, unit: "px", help: "Outline width."),
            .choice(Key.landmarks, help: "Mark the eyes, nose and mouth corners."),
            .choice(Key.label, help: "Caption each box with its track ID."),
        ],
        example: "facebox:color=#FF4040:thickness=3"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// Whether the landmarks are marked.
    enum Switch: String, ChoiceOption { case on, off }
    /// What each box is captioned with.
    enum Label: String, ChoiceOption {
        /// Its track's ID.
        case id
        /// Nothing.
        case off
    }

    private enum Key {
        static let color = ParameterKey<[Double]>("color")
        static let thickness = ParameterKey<Double>("thickness")
        static let landmarks = ParameterKey<Switch>("landmarks")
        static let label = ParameterKey<Label>("label")
    }

    public static var needs: DetectionNeeds { .faces }

    private let color: UInt32
    private let thickness: Double
    private let landmarks: Bool
    private let label: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        color = Annotation.pixel(parameters[Key.color])
        thickness = parameters[Key.thickness]
        landmarks = parameters[Key.landmarks] == .on
        label = parameters[Key.label] == .id
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        Annotation.copy(src, into: dst, stride: destinationStride, rows: rows)
        let (w, h) = (src.width, src.height)
        for face in context.observations where face.kind == .face && face.bounds.meets(width: w, height: h) {
            Annotation.outline(Annotation.corners(face.bounds), thickness: thickness, color: color, into: dst,
                               stride: destinationStride, width: w, height: h, rows: rows)
            if landmarks {
                let dot = max(3, face.bounds.width / 20)
                for p in face.landmarks.values {
                    Annotation.line(p, p, thickness: dot, color: color, into: dst, stride: destinationStride, width: w, height: h, rows: rows)
                }
            }
            if label && face.trackID > 0 {
                Annotation.caption("\(face.trackID)", x: face.bounds.x, y: face.bounds.y - 18, scale: 2, color: 0xFF00_0000,
                                   background: color, into: dst, stride: destinationStride, width: w, height: h, rows: rows)
            }
        }
    }
}
