/// The W3C/CSS sepia matrix, clamped, mixed with the original by `amount`
/// (spec A5: `out = (1−a)·c + a·clamp(M·c, 0, 1)`).
public struct Sepia: ColorEffect {
    public static let descriptor = EffectDescriptor(
        name: "sepia", category: .tone, summary: "Warm brown old-photo toning.",
        parameters: [.float("amount", default: 1, min: 0, max: 1, help: "How much sepia: 0 leaves the frame as it is.")],
        example: "sepia=0.8"
    )

    /// The mix in 1/1024ths.
    private let a: UInt32

    public init(parameters: Parameters, resources: EffectResources) {
        a = UInt32((parameters.double("amount") * 1024).rounded())
    }

    public func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext) {
        // Fixed point: matrix ×4096, so M·c is ≤ 255·4096·1.351 and fits UInt32; the mix
        // is ×1024, so each term is ≤ 255·4096·1024 ≈ 1.07e9. Wrapping ops vectorise.
        let a = self.a, keep = 1024 &- a
        let cap: UInt32 = 255 << 12
        if a == 1024 {
            // Full sepia (the default): no mix, nine multiplies per pixel.
            let half: UInt32 = 1 << 11
            for i in 0..<count {
                let p = pixels[i]
                let b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF
                var sr = 1610 &* r &+ 3150 &* g &+ 774 &* b &+ half
                var sg = 1430 &* r &+ 2810 &* g &+ 688 &* b &+ half
                var sb = 1114 &* r &+ 2187 &* g &+ 537 &* b &+ half
                sr = sr < cap ? sr : cap
                sg = sg < cap ? sg : cap
                sb = sb < cap ? sb : cap
                pixels[i] = (p & 0xFF00_0000) | ((sr >> 12) << 16) | ((sg >> 12) << 8) | (sb >> 12)
            }
            return
        }
        for i in 0..<count {
            let p = pixels[i]
            let b = p & 0xFF, g = (p >> 8) & 0xFF, r = (p >> 16) & 0xFF
            var sr = 1610 &* r &+ 3150 &* g &+ 774 &* b
            var sg = 1430 &* r &+ 2810 &* g &+ 688 &* b
            var sb = 1114 &* r &+ 2187 &* g &+ 537 &* b
            sr = sr < cap ? sr : cap
            sg = sg < cap ? sg : cap
            sb = sb < cap ? sb : cap
            let half: UInt32 = 1 << 21
            let or = ((r << 12) &* keep &+ sr &* a &+ half) >> 22
            let og = ((g << 12) &* keep &+ sg &* a &+ half) >> 22
            let ob = ((b << 12) &* keep &+ sb &* a &+ half) >> 22
            pixels[i] = (p & 0xFF00_0000) | (or << 16) | (og << 8) | ob
        }
    }
}
