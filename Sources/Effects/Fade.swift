/// Fades the picture in from a colour at the start and out to it at the end, as
/// ffmpeg's `fade` does: `fade:in=1:out=2` is `fade=t=in:d=1` and
/// `fade=t=out:st=END−2:d=2` in one, to the byte.
///
/// The level at time t of a ramp starting at s and lasting d is ffmpeg's 16-bit factor
/// `f = clamp(⌊(t − s)·65535/d⌋, 0, 65535)` (inverted for the fade out), and each
/// channel becomes `(c·65536 + (p − c)·f + 32768) >> 16` for the colour c. The end is
/// the output's length (``RenderContext/duration``): where that is not known (a live
/// preview), there is no fade out. Where both ramps overlap, their levels multiply.
/// `apply` ramps the sound's gain over the same times (``audioGain(at:duration:)``),
/// as `afade` does. Alpha is kept.
public struct Fade: ColorEffect, SoundShapingEffect {
    public static let descriptor = EffectDescriptor(
        name: "fade", category: .composite, summary: "Fade in from a colour at the start and out to it at the end, sound too.",
        parameters: [
            .float(Key.fadeIn, default: 1, min: 0, max: 36000, help: "Seconds of fading in from the start (0: none)."),
            .float(Key.fadeOut, default: 0, min: 0, max: 36000, help: "Seconds of fading out before the end (0: none)."),
            .color(Key.color, default: (0, 0, 0, 1), help: "The colour faded from and to: #RRGGBB or r,g,b in 0…1."),
        ],
        example: "fade:in=1:out=2"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    private enum Key {
        static let fadeIn = ParameterKey<Double>("in")
        static let fadeOut = ParameterKey<Double>("out")
        static let color = ParameterKey<[Double]>("color")
    }

    private let fadeIn: Double
    private let fadeOut: Double
    private let color: (r: Int32, g: Int32, b: Int32)

    public init(parameters: Parameters, resources: EffectResources) {
        fadeIn = parameters[Key.fadeIn]
        fadeOut = parameters[Key.fadeOut]
        let c = parameters[Key.color].map { Int32(ColorSpace.quantize($0)) }
        color = (c[0], c[1], c[2])
    }

    /// ffmpeg's 16-bit level of a ramp from `start` lasting `length` at `time`.
    private static func ramp(_ time: Double, start: Double, length: Double) -> Int32 {
        if time < start { return 0 }
        if time > start + length { return 65535 }
        let f = (time - start) * 65535 / length
        return Int32(min(max(f.rounded(.towardZero), 0), 65535))
    }

    /// The picture's 16-bit level at `time` (65535: as it is, 0: the colour).
    func level(at time: Double, duration: Double?) -> Int32 {
        var level: Int32 = 65535
        if fadeIn > 0 { level = Self.ramp(time, start: 0, length: fadeIn) }
        if fadeOut > 0, let duration {
            let out = 65535 - Self.ramp(time, start: duration - fadeOut, length: fadeOut)
            level = level == 65535 ? out : Int32((Int64(level) * Int64(out) + 32767) / 65535)
        }
        return level
    }

    /// Whether it fades out: it needs the output's length then.
    public var needsOutputDuration: Bool { fadeOut > 0 }

    /// The sound's gain at `time` seconds of the output, `duration` long (nil: not
    /// known, so no fade out): `afade`'s linear ramps over the picture's times, as a
    /// fraction in 0…1, to the sample.
    public func audioGain(at time: Double, duration: Double?) -> Double {
        var gain = 1.0
        if fadeIn > 0 { gain = min(max(time / fadeIn, 0), 1) }
        if fadeOut > 0, let duration { gain *= min(max((duration - time) / fadeOut, 0), 1) }
        return gain
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        let f = level(at: context.time, duration: context.duration)
        if f == 65535 { return }
        let (cr, cg, cb) = color
        @inline(__always) func mix(_ p: UInt32, _ shift: UInt32, _ c: Int32) -> UInt32 {
            let v = (c << 16 + (Int32((p >> shift) & 0xFF) - c) &* f + 32768) >> 16
            return UInt32(min(max(v, 0), 255)) << shift
        }
        for n in 0..<count {
            let p = pixels[n]
            pixels[n] = (p & 0xFF00_0000) | mix(p, 16, cr) | mix(p, 8, cg) | mix(p, 0, cb)
        }
    }
}
