/// Colour keying through a LUT "key image" mixed by intensity (spec A6); without a
/// LUT, classic solarize: invert where Rec.709 luma ≤ threshold.
public struct Solarize: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "solarize", category: .stylize, summary: "Solarize by luma, or recolour through a LUT key image.",
        parameters: [
            .float(Key.intensity, default: 1, min: 0, max: 1, help: "Mix with the original: 0 leaves the frame as it is."),
            .file(Key.lut, required: false, help: "Key: .cube file, Hald CLUT PNG or 512×512 lookup PNG; none for classic solarize."),
            .float(Key.threshold, default: 0.5, min: 0, max: 1, help: "Without a LUT: luma at or below which colours invert."),
        ],
        example: "solarize:threshold=0.6"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let intensity = ParameterKey<Double>("intensity")
        static let lut = ParameterKey<String>("lut")
        static let threshold = ParameterKey<Double>("threshold")
    }

    private let lut: LUTTable?
    /// The key's colours already mapped (only with a key).
    private let cache: ColourCache?
    private let intensity: Float
    private let limit: UInt32

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let path = parameters[Key.lut]
        // The iOS key images are trilinear (GPUImage LookupFilter).
        lut = path.isEmpty ? nil : try LUTTable(cube: LUT3D.load(path, resources: resources), interpolation: .trilinear)
        cache = path.isEmpty ? nil : ColourCache()
        intensity = Float(parameters[Key.intensity])
        limit = UInt32((parameters[Key.threshold] * 2_550_000).rounded(.down))
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        if let lut {
            if let cache, context.width * context.height >= ColourCache.minimumPixels {
                lut.apply(pixels, count: count, intensity: intensity, cache: cache)
            } else {
                lut.apply(pixels, count: count, intensity: intensity)
            }
            return
        }
        let limit = self.limit, k = UInt32((intensity * 256).rounded())
        if k == 256 {
            // Inverted where 2126·R + 7152·G + 722·B ≤ limit (the C kernel `luma_solarize`).
            colorKernels.luma_solarize(pixels, count, limit)
            return
        }
        for i in 0..<count {
            let p = pixels[i]
            let luma = 2126 &* ((p >> 16) & 0xFF) &+ 7152 &* ((p >> 8) & 0xFF) &+ 722 &* (p & 0xFF)
            guard luma <= limit else { continue }
            // Partial intensity: c + (inverted − c)·k/256 per channel, rounded.
            let inverted = p ^ 0x00FF_FFFF
            @inline(__always) func blend(_ shift: UInt32) -> UInt32 {
                let c = Int((p >> shift) & 0xFF), v = Int((inverted >> shift) & 0xFF)
                return UInt32((c * 256 + (v - c) * Int(k) + 128) >> 8) << shift
            }
            pixels[i] = (p & 0xFF00_0000) | blend(16) | blend(8) | blend(0)
        }
    }
}
