import FrameCore

/// Outlines every QR code and barcode found in the frame along its four corners, with
/// its payload as a caption under it, as iOS scanner apps draw what they read.
public struct QRBox: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "qrbox", category: .detection, summary: "Outline each QR code or barcode and caption it with its payload.",
        parameters: [
            .color(Key.color, default: (1, 0.85, 0, 1), help: "Outline colour: #RRGGBB or r,g,b in 0…1."),
            .float(Key.thickness, default: 3, min: 1, max: 40, slider: 1...12, unit: "px", help: "Outline width."),
            .int(Key.caption, default: 2, min: 0, max: 8, help: "Caption scale (0: no caption); long payloads are cut at 40 characters."),
        ],
        example: "qrbox:color=#00FF80:thickness=4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let color = ParameterKey<[Double]>("color")
        static let thickness = ParameterKey<Double>("thickness")
        static let caption = ParameterKey<Int>("caption")
    }

    public static var needs: DetectionNeeds { .codes }

    private let color: UInt32
    private let thickness: Double
    private let captionScale: Int

    public init(parameters: Parameters, resources: EffectResources) {
        color = Annotation.pixel(parameters[Key.color])
        thickness = parameters[Key.thickness]
        captionScale = parameters[Key.caption]
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        Annotation.copy(src, into: dst, stride: destinationStride, rows: rows)
        for code in context.observations where code.kind.isCode && code.bounds.meets(width: src.width, height: src.height) {
            let corners = code.corners.count == 4 ? code.corners : Annotation.corners(code.bounds)
            Annotation.outline(corners, thickness: thickness, color: color, into: dst, stride: destinationStride,
                               width: src.width, height: src.height, rows: rows)
            guard captionScale > 0 else { continue }
            var text = code.payload ?? "\(code.kind.rawValue) (binary)"
            if text.count > 40 { text = String(text.prefix(39)) + "…" }
            Annotation.caption(text, x: code.bounds.x, y: code.bounds.y + code.bounds.height + thickness + 2, scale: captionScale,
                               color: 0xFF00_0000, background: color, into: dst, stride: destinationStride,
                               width: src.width, height: src.height, rows: rows)
        }
    }
}
