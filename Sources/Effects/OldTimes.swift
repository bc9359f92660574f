import Foundation

/// Old film: frame jitter, warm monochrome tone, flicker, grain, scratches and a
/// vignette, after MLT's oldfilm filters (spec A2). Every random choice is an
/// integer hash of (seed, film tick, stream, index), so the bytes depend only on
/// (seed, time) and all times inside one film tick give identical frames.
public struct OldTimes: LayerEffect {
    public static let descriptor = EffectDescriptor(
        name: "oldtimes", kind: .layer, category: .stylize, summary: "Old film look: jitter, tone, flicker, grain, scratches, vignette.",
        parameters: [
            .float("amount", default: 1, min: 0, max: 1, help: "Overall strength: 0 leaves the frame as it is."),
            .int("seed", default: 0, min: 0, max: Int(UInt32.max), help: "Random seed; equal seeds give equal films."),
            .float("filmfps", default: 24, min: 1, max: 60, unit: "fps", help: "Rate at which the damage changes."),
            .float("grain", default: 0.08, min: 0, max: 0.5, help: "Grain strength."),
            .float("tone", default: 1, min: 0, max: 1, help: "Warm monochrome tone: 0 keeps the colours."),
            .float("vignette", default: 0.5, min: 0, max: 1, help: "Darkening towards the corners."),
        ]
    )

    private let amount: Double, seed: UInt32, filmFPS: Double, grain: Double, tone: Double, vignette: Double

    public init(parameters: Parameters, resources: EffectResources) {
        amount = parameters.double("amount")
        seed = UInt32(parameters.int("seed"))
        filmFPS = parameters.double("filmfps")
        grain = parameters.double("grain")
        tone = parameters.double("tone")
        vignette = parameters.double("vignette")
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
        let halfW = Double(w) / 2, halfH = Double(h) / 2, diagonal = (halfW * halfW + halfH * halfH).squareRoot()

        for y in rows {
            let out = dst + y * destinationStride
            let original = src.row(y)
            let sy = y + dy
            let from: UnsafePointer<UInt32>? = sy >= 0 && sy < h ? src.row(sy) : nil
            for x in 0..<w {
                let p = from?[x] ?? 0
                var r = Double((p >> 16) & 0xFF) / 255, g = Double((p >> 8) & 0xFF) / 255, b = Double(p & 0xFF) / 255
                let luma = 0.299 * r + 0.587 * g + 0.114 * b
                r += (luma - r) * tone; g += (luma * 0.92 - g) * tone; b += (luma * 0.78 - b) * tone
                let n = grain * (2 * u(s, tick, 5, UInt32(truncatingIfNeeded: x + y * w)) - 1)
                r = min(max(r + bright + drift + n, 0), 1)
                g = min(max(g + bright + drift + n, 0), 1)
                b = min(max(b + bright + drift + n, 0), 1)
                for scratch in scratches where y >= scratch.y0 && y < scratch.y1 && abs(x - scratch.x) < 2 {
                    let f = 1 - Double(abs(x - scratch.x)) / 2
                    if scratch.dark {
                        r *= 1 - 0.4 * f; g *= 1 - 0.4 * f; b *= 1 - 0.4 * f
                    } else {
                        r += (1 - r) * 0.4 * f; g += (1 - g) * 0.4 * f; b += (1 - b) * 0.4 * f
                    }
                }
                let dx = Double(x) + 0.5 - halfW, dyc = Double(y) + 0.5 - halfH
                let t = min(max(((dx * dx + dyc * dyc).squareRoot() / diagonal - 0.45) / 0.55, 0), 1)
                let shade = 1 - vignette * t * t * (3 - 2 * t)
                r *= shade; g *= shade; b *= shade
                let o = original[x]
                @inline(__always) func mixed(_ c: Double, _ shift: UInt32) -> UInt32 {
                    let v = Double((o >> shift) & 0xFF) / 255
                    let m = (v + (c - v) * amount) * 255 + 0.5
                    return m <= 0 ? 0 : (m >= 255 ? 255 : UInt32(m.rounded(.down)))
                }
                out[x] = (o & 0xFF00_0000) | mixed(r, 16) << 16 | mixed(g, 8) << 8 | mixed(b, 0)
            }
        }
    }
}
