import Foundation

/// How distortions read the source between pixel centres.
enum Sampling: String, Sendable {
    /// S_bil: bilinear, clamped to the edge (SwiftUI's `layer.sample`, Core Image).
    case bilinear
    /// S_near: the pixel the position falls in (FFmpeg `geq` with integer taps).
    case nearest

    static let parameter = ParameterSpec.choice("sample", ["bilinear", "nearest"],
                                                help: "bilinear: smooth (Core Image, SwiftUI); nearest: the pixel under the position.")

    init(_ parameters: Parameters) { self = Sampling(rawValue: parameters.text("sample")) ?? .bilinear }
}

extension SourceImage {
    /// The source at position (px, py) (pixel centres at +0.5), clamped to the edge.
    /// Bilinear results round to bytes; alpha is the nearest pixel's.
    @inline(__always)
    func sample(_ px: Float, _ py: Float, _ sampling: Sampling) -> UInt32 {
        // Clamp before converting: positions far outside must not trap.
        let fx = px < -1 ? -1 : (px > Float(width + 1) ? Float(width + 1) : px)
        let fy = py < -1 ? -1 : (py > Float(height + 1) ? Float(height + 1) : py)
        let nearest = clamped(Int(fx.rounded(.down)), Int(fy.rounded(.down)))
        if sampling == .nearest { return nearest }
        let (r, g, b) = bilinear(fx, fy)
        return (nearest & 0xFF00_0000) | roundedByte(r) << 16 | roundedByte(g) << 8 | roundedByte(b)
    }
}
