/// A 4×4 colour matrix plus bias on straight RGBA (spec B2, CIColorMatrix):
/// `out = (R·s, G·s, B·s, A·s) + bias` with `s = (r, g, b, a)` in 0…1, so alpha takes
/// part. In linear light the colour channels are decoded first; alpha is never encoded.
public struct ColorMatrix: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "colormatrix", category: .grading, summary: "Multiply RGBA by a 4×4 matrix and add a bias (Core Image's color matrix).",
        parameters: [
            .vector(Key.r, default: [1, 0, 0, 0], help: "Red output = r·(R,G,B,A)."),
            .vector(Key.g, default: [0, 1, 0, 0], help: "Green output = g·(R,G,B,A)."),
            .vector(Key.b, default: [0, 0, 1, 0], help: "Blue output = b·(R,G,B,A)."),
            .vector(Key.a, default: [0, 0, 0, 1], help: "Alpha output = a·(R,G,B,A)."),
            .vector(Key.bias, default: [0, 0, 0, 0], help: "Added to (R,G,B,A) afterwards, in 0…1 units."),
            ColorSpace.parameter,
        ],
        example: "colormatrix:r=0.6,0.3,0.1,0:g=0.2,0.7,0.1,0:b=0.1,0.2,0.5,0:bias=0.05,0,0.1,0"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let r = ParameterKey<[Double]>("r")
        static let g = ParameterKey<[Double]>("g")
        static let b = ParameterKey<[Double]>("b")
        static let a = ParameterKey<[Double]>("a")
        static let bias = ParameterKey<[Double]>("bias")
    }

    /// Row-major 4×4 on (r, g, b, a) in 0…1.
    private let m: [Float]
    private let bias: [Float]
    private let space: ColorSpace
    /// Alpha in = alpha out, so the colour part is an ``AffineColor`` when encoded.
    private let affine: AffineColor?

    public init(parameters: Parameters, resources: EffectResources) {
        m = [Key.r, Key.g, Key.b, Key.a].flatMap { parameters[$0].map(Float.init) }
        bias = parameters[Key.bias].map(Float.init)
        space = ColorSpace(parameters)
        let alphaKept = m[3] == 0 && m[7] == 0 && m[11] == 0 && m[12...15] == [0, 0, 0, 1] && bias[3] == 0
        affine = alphaKept && space == .encoded && bias[0] == bias[1] && bias[1] == bias[2]
            ? AffineColor([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]], offset: bias[0] * 255) : nil
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        if let affine { return affine.apply(to: pixels, count: count) }
        if space == .linear {
            // The C kernel `linear_matrix_rgba`: colour decoded, alpha as it is.
            LinearLight.shared.withTables { lin, enc in
                m.withUnsafeBufferPointer { m in
                    bias.withUnsafeBufferPointer { colorKernels.linear_matrix_rgba(pixels, count, m.baseAddress, $0.baseAddress, lin, enc) }
                }
            }
            return
        }
        let (m0, m1, m2, m3, m4, m5, m6, m7) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7])
        let (m8, m9, m10, m11, m12, m13, m14, m15) = (m[8], m[9], m[10], m[11], m[12], m[13], m[14], m[15])
        let (b0, b1, b2, b3) = (bias[0], bias[1], bias[2], bias[3])
        // Encoded: in 0…255 units, so only the alpha column and the bias scale.
        let (k3, k7, k11, k15) = (m3, m7, m11, m15)
        let (o0, o1, o2, o3) = (b0 * 255, b1 * 255, b2 * 255, b3 * 255)
        for i in 0..<count {
            let p = pixels[i]
            let b = Float(Int32(bitPattern: p & 0xFF)), g = Float(Int32(bitPattern: (p >> 8) & 0xFF))
            let r = Float(Int32(bitPattern: (p >> 16) & 0xFF)), a = Float(Int32(bitPattern: p >> 24))
            let nr = roundedByte(m0 * r + m1 * g + m2 * b + k3 * a + o0)
            let ng = roundedByte(m4 * r + m5 * g + m6 * b + k7 * a + o1)
            let nb = roundedByte(m8 * r + m9 * g + m10 * b + k11 * a + o2)
            let na = roundedByte(m12 * r + m13 * g + m14 * b + k15 * a + o3)
            pixels[i] = na << 24 | nr << 16 | ng << 8 | nb
        }
    }
}
