import CPixelKernels
import Foundation

/// Old film: frame jitter, warm monochrome tone, flicker, grain, scratches and a
/// vignette, after MLT's oldfilm filters (spec A2). Every random choice is an
/// integer hash of (seed, film tick, stream, index), so the bytes depend only on
/// (seed, time) and all times inside one film tick give identical frames.
public struct OldTimes: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "oldtimes", category: .stylize, summary: "Old film look: jitter, tone, flicker, grain, scratches, vignette.",
        parameters: [
            .float(Key.amount, default: 1, min: 0, max: 1, help: "Overall strength: 0 leaves the frame as it is."),
            .int(Key.seed, default: 0, min: 0, max: 1_000_000, help: "Random seed; equal seeds give equal films."),
            .float(Key.filmfps, default: 24, min: 1, max: 60, unit: "fps", help: "Rate at which the damage changes."),
            .float(Key.grain, default: 0.08, min: 0, max: 0.5, help: "Grain strength."),
            .float(Key.tone, default: 1, min: 0, max: 1, help: "Warm monochrome tone: 0 keeps the colours."),
            .float(Key.vignette, default: 0.5, min: 0, max: 1, help: "Darkening towards the corners."),
        ],
        example: "oldtimes:grain=0.12:vignette=0.6"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let amount = ParameterKey<Double>("amount")
        static let seed = ParameterKey<Int>("seed")
        static let filmfps = ParameterKey<Double>("filmfps")
        static let grain = ParameterKey<Double>("grain")
        static let tone = ParameterKey<Double>("tone")
        static let vignette = ParameterKey<Double>("vignette")
    }

    private let amount: Double, seed: UInt32, filmFPS: Double, grain: Double, tone: Double, vignette: Double

    public init(parameters: Parameters, resources: EffectResources) {
        amount = parameters[Key.amount]
        seed = UInt32(parameters[Key.seed])
        filmFPS = parameters[Key.filmfps]
        grain = parameters[Key.grain]
        tone = parameters[Key.tone]
        vignette = parameters[Key.vignette]
    }

    /// lowbias32 (C. Wellons).
    @inline(__always) static func hash(_ v: UInt32) -> UInt32 {
        var x = v
        x ^= x >> 16; x = x &* 0x7feb_352d
        x ^= x >> 15; x = x &* 0x846c_a68b
        x ^= x >> 16
        return x
    }

    @inline(__always) static func hash4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        hash(a ^ hash(b ^ hash(c ^ hash(d))))
    }

    /// Uniform in [0, 1).
    @inline(__always) static func uniform(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> Double {
        Double(hash4(a, b, c, d) >> 8) * 0x1p-24
    }

    private struct Scratch { var x: Int, y0: Int, y1: Int, dark: Bool }

    public func render(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>, context: RenderContext) {
        let w = src.width, h = src.height, s = seed
        let tick = UInt32(truncatingIfNeeded: Int64((max(context.time, 0) * filmFPS).rounded(.down)))
        let u = OldTimes.uniform
        let dy = u(s, tick, 1, 0) < 0.20 ? Int(((2 * u(s, tick, 2, 0) - 1) * 0.015 * Double(h)).rounded()) : 0
        let bright = u(s, tick, 3, 0) < 0.70 ? (-30 + 50 * u(s, tick, 4, 0)) / 255 : 0
        let drift = 0.06 * sin(2 * Double.pi * Double(tick) / 70)
        var scratches: [Scratch] = []
        for i: UInt32 in 0..<5 where u(s, tick, 6, i) < 0.5 {
            let xm = Int((u(s, tick / 12, 7, i) * Double(w)).rounded(.down)) + Int((4 * u(s, tick, 8, i) - 2).rounded())
            let y0 = Int((u(s, tick, 9, i) * Double(h)).rounded(.down))
            var y1 = Int((u(s, tick, 10, i) * Double(h)).rounded(.down))
            if y1 < y0 { y1 = h }
            scratches.append(Scratch(x: xm, y0: y0, y1: y1, dark: u(s, tick, 11, i) < 0.67))
        }
        let halfW = Float(w) / 2, halfH = Float(h) / 2, inverseDiagonal = 1 / (halfW * halfW + halfH * halfH).squareRoot()
        let tone = Float(self.tone), grain = Float(self.grain), vignette = Float(self.vignette), amount = Float(self.amount)
        let lift = Float(bright + drift)
        // Per row: scratches as c·M[x] + A[x] (each scratch is such a map, and they compose),
        // so the pixel loop has no branches and vectorises. A black row stands in for
        // rows jittered in from outside the frame.
        var mul = [Float](repeating: 1, count: w), add = [Float](repeating: 0, count: w)
        let black = [UInt32](repeating: 0, count: w)
        mul.withUnsafeMutableBufferPointer { mul in add.withUnsafeMutableBufferPointer { add in black.withUnsafeBufferPointer { black in
            for y in rows {
                mul.update(repeating: 1)
                add.update(repeating: 0)
                for scratch in scratches where y >= scratch.y0 && y < scratch.y1 {
                    for x in max(0, scratch.x - 1)...min(w - 1, max(0, scratch.x + 1)) where abs(x - scratch.x) < 2 {
                        let f = 0.4 * (1 - Float(abs(x - scratch.x)) / 2)
                        mul[x] *= 1 - f
                        add[x] = scratch.dark ? add[x] * (1 - f) : add[x] * (1 - f) + f
                    }
                }
                let out = dst + y * destinationStride
                let original = src.row(y)
                let sy = y + dy
                let from = sy >= 0 && sy < h ? src.row(sy) : black.baseAddress!
                // Tone, grain, scratches, vignette and the mix: the C kernel `oldtimes_row`
                // (its integer hash wants 32-bit vector multiplies, which baseline x86-64 lacks).
                var params = vfx_oldtimes_row_params(
                    seed: s, tick: tick, row_seed: UInt32(truncatingIfNeeded: y * w), tone: tone, grain: grain, lift: lift,
                    half_w: halfW, dyc: Float(y) + 0.5 - halfH, inverse_diagonal: inverseDiagonal, vignette: vignette, amount: amount)
                colorKernels.oldtimes_row(from, original, out, w, mul.baseAddress, add.baseAddress, &params)
            }
        } } }
    }
}
