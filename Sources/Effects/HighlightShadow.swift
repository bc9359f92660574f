import Foundation

/// Recovers highlights and lifts shadows (spec B10, CIHighlightShadowAdjust with
/// GPUImage's formula on `l = Y709(c)`): every channel is scaled by
/// `gain = (l + shadowTerm(l) + highlightTerm(l)) / l`. With `radius > 0` the gain is
/// computed from a Gaussian-blurred luminance (σ = radius px), so it follows regions
/// rather than single pixels, a local tone map as Core Image's is.
public struct HighlightShadow: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "highlightshadow", category: .tone, summary: "Darken highlights and lift shadows (Core Image's highlight and shadow adjust).",
        parameters: [
            .float(Key.highlight, default: 1, min: 0, max: 1, slider: 0.3...1, help: "1 leaves highlights alone; lower pulls them down."),
            .float(Key.shadow, default: 0, min: -1, max: 1, help: "0 leaves shadows alone; positive lifts them, negative deepens them."),
            .float(Key.radius, default: 0, min: 0, max: 100, slider: 0...10, unit: "px", help: "Blur of the luminance the gain follows (0: per pixel)."),
            ColorSpace.parameter,
        ],
        example: "highlightshadow:highlight=0.3:shadow=0.8:radius=4"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let highlight = ParameterKey<Double>("highlight")
        static let shadow = ParameterKey<Double>("shadow")
        static let radius = ParameterKey<Double>("radius")
    }

    /// `l + shadowTerm + highlightTerm` sampled at `steps + 1` luminances, read with
    /// linear interpolation (smooth, so far inside ±1 of the formula).
    private let numerator: [Float]
    private static let steps = 16384
    private let radius: Double
    private let space: ColorSpace
    private let identity: Bool

    public init(parameters: Parameters, resources: EffectResources) {
        let h = parameters[Key.highlight], s = parameters[Key.shadow]
        radius = parameters[Key.radius]
        space = ColorSpace(parameters)
        identity = h == 1 && s == 0
        numerator = (0...Self.steps).map { i in
            Float(HighlightShadow.numerator(Double(i) / Double(Self.steps), highlight: h, shadow: s))
        }
    }

    /// The spec's formula: `l + sign(S)·sh(|S|) + hi(H)`.
    static func numerator(_ l: Double, highlight: Double, shadow: Double) -> Double {
        let a = abs(shadow)
        let sh = min(max(pow(l, 1 / (a + 1)) - 0.76 * pow(l, 2 / (a + 1)) - l, 0), 1)
        let hi = min(max(1 - (pow(1 - l, 1 / (2 - highlight)) - 0.8 * pow(1 - l, 2 / (2 - highlight))) - l, -1), 0)
        return l + (shadow < 0 ? -sh : sh) + hi
    }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width
        if identity {
            for y in rows { (dst + y * destinationStride).update(from: src.row(y), count: w) }
            return
        }
        let linear = space == .linear
        // Luminance for these rows (and, with a radius, blurred from a margin around them).
        let blurred = radius > 0 ? blurredLuma(src, rows: rows, linear: linear) : nil
        var luma = [Float](repeating: 0, count: w)
        // Both steps are C kernels (AVX2 where the CPU has it, in every build).
        numerator.withUnsafeBufferPointer { table in
            LinearLight.shared.withTables { lin, enc in
                luma.withUnsafeMutableBufferPointer { l in
                    for y in rows {
                        let from = src.row(y)
                        if let blurred {
                            blurred.withUnsafeBufferPointer { l.baseAddress!.update(from: $0.baseAddress! + (y - rows.lowerBound) * w, count: w) }
                        } else {
                            HighlightShadow.luma(from, count: w, linear: linear, lin, into: l.baseAddress!)
                        }
                        colorKernels.highlight_shadow_row(from, dst + y * destinationStride, l.baseAddress!, w, table.baseAddress!,
                                                          Int32(Self.steps), linear ? lin : nil, enc)
                    }
                }
            }
        }
    }

    /// Y709 of a row, in 0…1 (of the linear values when `linear`).
    @inline(__always)
    private static func luma(_ row: UnsafePointer<UInt32>, count: Int, linear: Bool, _ lin: UnsafePointer<Float>, into l: UnsafeMutablePointer<Float>) {
        colorKernels.luma_row(row, l, count, linear ? lin : nil)
    }

    /// Gaussian-blurred luminance of `rows` (σ = radius, 3σ taps each side, edges
    /// clamped), computed from the rows within reach of this band only, so bands stay
    /// independent. Row `y` of the band starts at `(y − rows.lowerBound)·width`.
    private func blurredLuma(_ src: SourceImage, rows: Range<Int>, linear: Bool) -> [Float] {
        let w = src.width, h = src.height
        let reach = Int((3 * radius).rounded(.up))
        var kernel = (-reach...reach).map { Float(exp(-Double($0 * $0) / (2 * radius * radius))) }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        let lo = max(0, rows.lowerBound - reach), hi = min(h, rows.upperBound + reach)
        // Horizontal pass over the rows in reach: each luma row is padded with its edge
        // values so the taps need no clamping and the loop over x vectorises.
        var horizontal = [Float](repeating: 0, count: (hi - lo) * w)
        var line = [Float](repeating: 0, count: w + 2 * reach)
        LinearLight.shared.withTables { lin, _ in
            line.withUnsafeMutableBufferPointer { padded in
                let p = padded.baseAddress!
                horizontal.withUnsafeMutableBufferPointer { out in
                    kernel.withUnsafeBufferPointer { k in
                        for y in lo..<hi {
                            HighlightShadow.luma(src.row(y), count: w, linear: linear, lin, into: p + reach)
                            p.update(repeating: p[reach], count: reach)
                            (p + reach + w).update(repeating: p[reach + w - 1], count: reach)
                            let o = out.baseAddress! + (y - lo) * w
                            o.update(repeating: 0, count: w)
                            for t in 0..<k.count { colorKernels.add_scaled(o, p + t, w, k[t]) }
                        }
                    }
                }
            }
        }
        // Vertical pass for the band's rows, a whole row at a time. (Each tap of both passes
        // is the C kernel `add_scaled`, AVX2 wherever the CPU has it.)
        var result = [Float](repeating: 0, count: rows.count * w)
        result.withUnsafeMutableBufferPointer { out in
            horizontal.withUnsafeBufferPointer { hz in
                for y in rows {
                    let o = out.baseAddress! + (y - rows.lowerBound) * w
                    for k in 0..<kernel.count {
                        let sy = min(max(y + k - reach, 0), h - 1) - lo
                        colorKernels.add_scaled(o, hz.baseAddress! + sy * w, w, kernel[k])
                    }
                }
            }
        }
        return result
    }
}
