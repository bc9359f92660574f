/// A 2×3 affine transform of the picture (spec B20, CIAffineTransform), in Core
/// Image's convention: `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty` with the origin at
/// the bottom-left and y up, so positive rotations turn counter-clockwise about that
/// corner. The canvas keeps its size; uncovered pixels are transparent black.
public struct Affine: DistortionEffect {
    public static let descriptor = EffectDescriptor(
        name: "affine", category: .geometry, summary: "Scale, rotate, skew and move the picture by a 2×3 matrix (Core Image's affine transform).",
        parameters: [
            .vector(Key.transform, default: [1, 0, 0, 1, 0, 0], help: "a,b,c,d,tx,ty: x' = a·x + c·y + tx, y' = b·x + d·y + ty (y up, origin bottom-left, px)."),
            Sampling.parameter,
        ],
        example: "affine:transform=0.75,0.2,-0.2,0.75,80,40"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let transform = ParameterKey<[Double]>("transform")
    }

    /// The inverse matrix (y-up coordinates).
    private let inverse: (a: Double, b: Double, c: Double, d: Double)
    private let t: (Double, Double)
    private let identity: Bool
    /// How positions between pixels are read.
    public let sampling: Sampling
    /// Output→source positions, per frame size.
    public let map = SourceMap()

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let m = parameters[Key.transform]
        let det = m[0] * m[3] - m[1] * m[2]
        guard abs(det) > 1e-9 else { throw EffectError("affine: transform \(ParameterValue.vector(m)) is singular (a·d − b·c = 0)") }
        inverse = (m[3] / det, -m[1] / det, -m[2] / det, m[0] / det)
        t = (m[4], m[5])
        identity = m == [1, 0, 0, 1, 0, 0]
        sampling = Sampling(parameters)
    }

    /// The identity matrix is a copy, not a resample.
    public var isIdentity: Bool { identity }

    /// The inverse transform of the position, in y-up coordinates; nil off the source.
    public func sourcePosition(x px: Double, y: Double, width w: Int, height hgt: Int) -> (x: Double, y: Double)? {
        let h = Double(hgt)
        let maxX = Float(w - 1), maxY = Float(hgt - 1)
        let (ia, ib, ic, id) = inverse
        // F(p) − t, then src_ci = A⁻¹·q with A⁻¹ = [ia ic; ib id], in Double.
        let qy = h - y - t.1
        let rowX = ic * qy - ia * t.0, rowY = h - (id * qy - ib * t.0)
        let sx = Float(rowX + ia * px), sy = Float(rowY - ib * px)
        let ux = sx - 0.5, uy = sy - 0.5
        guard ux >= 0 && ux <= maxX && uy >= 0 && uy <= maxY else { return nil }
        return (Double(sx), Double(sy))
    }
}
