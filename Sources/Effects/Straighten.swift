import Foundation

/// Rotates about the centre and zooms just enough that no empty corner shows (spec
/// B21, CIStraightenFilter): `s = |cos θ| + max(W/H, H/W)·|sin θ|`, positive angles turn
/// the picture counter-clockwise on screen.
public struct Straighten: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "straighten", kind: .distortion, category: .geometry, summary: "Rotate and zoom to fill, to level a tilted horizon (Core Image's straighten).",
        parameters: [
            .float("angle", default: 0, min: -360, max: 360, slider: -45...45, unit: "deg", help: "Rotation, counter-clockwise, degrees or radians."),
            Sampling.parameter,
        ],
        example: "straighten=10"
    )

    private let angle: Double
    private let sampling: Sampling
    /// Output→source positions, per frame size.
    private let map = SourceMap()

    public init(parameters: Parameters, resources: EffectResources) {
        angle = parameters.double("angle") * .pi / 180
        sampling = Sampling(parameters)
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = Double(src.width), h = Double(src.height)
        let s = abs(cos(angle)) + max(w / h, h / w) * abs(sin(angle))
        let (c, sn) = (Float(cos(angle) / s), Float(sin(angle) / s))
        let (cx, cy) = (Float(w / 2), Float(h / 2))
        if angle == 0 {  // exact identity, not a resample
            for y in rows { (dst + y * destinationStride).update(from: src.row(y), count: src.width) }
            return
        }
        let (iw, ih) = (src.width, src.height), sampling = self.sampling
        let entries = map.map(width: iw, height: ih) { y, row in
            let dy = Float(y) + 0.5 - cy
            for x in 0..<iw {
                let dx = Float(x) + 0.5 - cx
                row[x] = SourceMap.entry(cx + dx * c - dy * sn, cy + dx * sn + dy * c, width: iw, height: ih, sampling: sampling)
            }
        }
        SourceMap.render(entries, src, into: dst, destinationStride: destinationStride, rows: rows, sampling: sampling)
    }
}
