/// General LUT colour grading (spec §C): `.cube`, Hald CLUT or 512×512 lookup image.
public struct LUT: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "lut", category: .grading, summary: "Colour grading through a 3D LUT (.cube, Hald CLUT, 512×512 lookup PNG).",
        parameters: [
            .file(Key.file, required: true, help: "The LUT: .cube, Hald CLUT image, or 512×512 lookup image."),
            .float(Key.intensity, default: 1, min: 0, max: 1, help: "Mix with the original: 0 leaves the frame as it is."),
            .choice(Key.interp, help: "Interpolation between grid points."),
        ],
        example: "lut:file=grade.cube:intensity=0.8"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let file = ParameterKey<String>("file")
        static let intensity = ParameterKey<Double>("intensity")
        static let interp = ParameterKey<LUTInterpolation>("interp")
    }

    private let table: LUTTable
    private let intensity: Float
    private let cache = ColourCache()

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        let cube = try LUT3D.load(parameters[Key.file], resources: resources)
        table = LUTTable(cube: cube, interpolation: parameters[Key.interp])
        intensity = Float(parameters[Key.intensity])
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        if context.width * context.height >= ColourCache.minimumPixels {
            table.apply(pixels, count: count, intensity: intensity, cache: cache)
        } else {
            table.apply(pixels, count: count, intensity: intensity)
        }
    }
}
