import FrameCore

/// Colour effects fused into one pass over a frame, using every core: each span of a row
/// (``EffectChain``'s span, which fits in L1) goes through every effect before the next.
/// What the chain runs for a run of colour effects, and what a layer holding such a run
/// between passes of its own runs (colour effects between users' shaders, on the frame
/// where the shaders left it).
public struct ColorPass: Sendable {
    /// The effects, in order.
    public let effects: [any ColorEffect]

    /// A pass of `effects`.
    public init(_ effects: [any ColorEffect]) { self.effects = effects }

    /// Renders `context.width`×`context.height` pixels from `source` (`sourceStride` pixels
    /// a row) into `destination` (`destinationStride` a row); the two may be the same memory.
    public func render(from source: UnsafePointer<UInt32>, stride sourceStride: Int, into destination: UnsafeMutablePointer<UInt32>,
                       stride destinationStride: Int, context: RenderContext) {
        let width = context.width
        let sBase = UInt(bitPattern: source), dBase = UInt(bitPattern: destination)
        let effects = effects
        Bands.run(height: context.height) { rows in
            let sp = UnsafePointer<UInt32>(bitPattern: sBase)!
            let dp = UnsafeMutablePointer<UInt32>(bitPattern: dBase)!
            for y in rows {
                var x = 0
                while x < width {
                    let n = min(EffectChain.span, width - x)
                    let out = dp + y * destinationStride + x
                    if sBase != dBase { out.update(from: sp + y * sourceStride + x, count: n) }
                    for effect in effects { effect.apply(out, count: n, x: x, y: y, context: context) }
                    x += n
                }
            }
        }
    }
}
