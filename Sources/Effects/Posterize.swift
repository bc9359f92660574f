/// `levels` output values per channel, 0 and 1 included: `round(c·(L−1))/(L−1)`
/// (spec A4, the GIMP convention).
public struct Posterize: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "posterize", kind: .color, category: .stylize, summary: "Reduce each channel to a few flat levels.",
        parameters: [.float("levels", default: 6, min: 2, max: 256, slider: 2...30, help: "Levels per channel, black and white included.")]
    )

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let steps = parameters.double("levels") - 1
        table = ChannelTable { v in
            let q = ((Double(v) / 255 * steps) + 0.5).rounded(.down) / steps
            return UInt8((q * 255 + 0.5).rounded(.down))
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}

/// The same 256-entry map applied to R, G and B; alpha kept.
struct ChannelTable: Sendable {
    private let entries: [UInt32]

    init(_ map: (Int) -> UInt8) { entries = (0..<256).map { UInt32(map($0)) } }

    func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        entries.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            for i in 0..<count {
                let p = pixels[i]
                pixels[i] = (p & 0xFF00_0000) | t[Int((p >> 16) & 0xFF)] << 16 | t[Int((p >> 8) & 0xFF)] << 8 | t[Int(p & 0xFF)]
            }
        }
    }
}
