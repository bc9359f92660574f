/// `levels` output values per channel, 0 and 1 included: `round(c·(L−1))/(L−1)`
/// (spec A4, the GIMP convention).
public struct Posterize: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "posterize", category: .stylize, summary: "Reduce each channel to a few flat levels.",
        parameters: [.float(Key.levels, default: 6, min: 2, max: 256, slider: 2...30, help: "Levels per channel, black and white included.")],
        example: "posterize=5"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let levels = ParameterKey<Double>("levels")
    }

    private let table: ChannelTable

    public init(parameters: Parameters, resources: EffectResources) {
        let steps = parameters[Key.levels] - 1
        table = ChannelTable { v in
            // With a fractional L the top level can round past 1 (L = 7.6: round(6.6) = 7,
            // 7/6.6 > 1); it is white, as a level beyond the range would be clipped.
            let q = min(1, ((Double(v) / 255 * steps) + 0.5).rounded(.down) / steps)
            return UInt8((q * 255 + 0.5).rounded(.down))
        }
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        table.apply(pixels, count: count)
    }
}

/// The same 256-entry map applied to R, G and B; alpha kept. Green and blue are
/// looked up together in a 64K-entry table (128 KB, stays in L2), so a pixel costs two
/// lookups instead of three.
struct ChannelTable: Sendable {
    private let red: [UInt32]
    private let greenBlue: [UInt16]

    init(_ map: (Int) -> UInt8) {
        let single = (0..<256).map { UInt16(map($0)) }
        self.init(red: single, green: single, blue: single)
    }

    /// One map per channel (white point, colour threshold).
    init(red: (Int) -> UInt8, green: (Int) -> UInt8, blue: (Int) -> UInt8) {
        self.init(red: (0..<256).map { UInt16(red($0)) }, green: (0..<256).map { UInt16(green($0)) }, blue: (0..<256).map { UInt16(blue($0)) })
    }

    private init(red r: [UInt16], green g: [UInt16], blue b: [UInt16]) {
        red = r.map { UInt32($0) << 16 }
        var gb = [UInt16](repeating: 0, count: 65536)
        for gi in 0..<256 { for bi in 0..<256 { gb[gi << 8 | bi] = g[gi] << 8 | b[bi] } }
        greenBlue = gb
    }

    func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int) {
        red.withUnsafeBufferPointer { r in
            greenBlue.withUnsafeBufferPointer { gb in
                let r = r.baseAddress!, gb = gb.baseAddress!
                for i in 0..<count {
                    let p = pixels[i]
                    pixels[i] = (p & 0xFF00_0000) | r[Int((p >> 16) & 0xFF)] | UInt32(gb[Int(p & 0xFFFF)])
                }
            }
        }
    }
}
