public import Effects
import FrameCore
import Synchronization

/// Several users' shaders one after another as one layer of the chain: the frame goes to
/// the device once and comes back once, each shader reading what the one before it wrote
/// there (``ShaderProgram/run(_:source:sourceStride:destination:destinationStride:width:height:time:tick:frameRate:)``).
/// Built-in effects between two of them (`a.glsl,vignette,pixelate,b.glsl`) run on the
/// frame where the first left it, on the device's memory, before the second reads it:
/// still one copy each way (a layer between reads a copy of that memory and writes back
/// into it). The chain makes one when a shader is followed by another, with or without
/// colour effects and size-keeping layers between (``JoiningLayerEffect``); its pixels
/// are those of its effects in turn.
public struct ShaderRun: LayerEffect, FallibleEffect, JoiningLayerEffect {
    /// A run is made by the chain from the shaders it joins, never from a chain entry.
    public static let descriptor = EffectDescriptor(
        name: "shader run", category: .stylize, summary: "Shaders one after another on the device (made by the chain).", parameters: [])

    /// The shaders, in order.
    public let shaders: [ShaderEffect]
    /// The built-in effects after each shader, in turn (none after the last).
    public let stepsAfter: [[JoinedStep]]

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        throw EffectError("shader run: made by the chain from the shaders it joins")
    }

    init(_ shaders: [ShaderEffect], stepsAfter: [[JoinedStep]]? = nil) {
        self.shaders = shaders
        self.stepsAfter = stepsAfter ?? shaders.map { _ in [] }
    }

    /// The shaders' names, joined: what the run is in a message.
    public var descriptor: EffectDescriptor {
        EffectDescriptor(name: shaders.map(\.descriptor.name).joined(separator: ","), category: .stylize,
                         summary: "\(shaders.count) shaders on the device in one pass", parameters: [])
    }

    public func joined(with next: any LayerEffect) -> (any LayerEffect)? {
        joined(withSteps: [], then: next)
    }

    public func joined(withColors colors: [any ColorEffect], then next: any LayerEffect) -> (any LayerEffect)? {
        joined(withSteps: [.colors(colors)], then: next)
    }

    public func joined(withSteps steps: [JoinedStep], then next: any LayerEffect) -> (any LayerEffect)? {
        let more: ShaderRun
        if let shader = next as? ShaderEffect { more = ShaderRun([shader]) } else if let run = next as? ShaderRun { more = run } else { return nil }
        let all = shaders + more.shaders
        // One program twice would read the frame where it writes it: two passes then. A
        // layer between must keep the size: the device's buffers are the frame's.
        guard all.count <= ShaderProgram.mostInARun, Set(all.map { ObjectIdentifier($0.program) }).count == all.count,
              steps.allSatisfy({ if case .layer(let l) = $0 { JoinedStep.keepsSize(l) } else { true } }) else { return nil }
        var after = stepsAfter
        after[after.count - 1] += steps
        return ShaderRun(all, stepsAfter: after + more.stepsAfter)
    }

    /// The layers between its shaders build what depends on the size.
    public func prepare(width: Int, height: Int) {
        for case .layer(let layer) in stepsAfter.joined() { layer.prepare(width: width, height: height) }
    }

    /// The frame a layer between two shaders reads: one for every run, as the device takes
    /// one run at a time (its turn is held while the host works between two programs).
    private static let scratch = Mutex<[UInt32]>([])

    /// The first failure of any of its shaders.
    public var failure: String? { shaders.lazy.compactMap(\.failure).first }

    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       rows: Range<Int>, context: RenderContext) {
        // A shader reads the whole frame: the rows asked for are cut from a whole render.
        var whole = [UInt32](repeating: 0, count: source.width * source.height)
        whole.withUnsafeMutableBufferPointer { w in
            render(source, into: w.baseAddress!, destinationStride: source.width, context: context)
        }
        for y in rows { for x in 0..<source.width { destination[y * destinationStride + x] = whole[y * source.width + x] } }
    }

    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       context: RenderContext) {
        let (w, h) = (source.width, source.height)
        do {
            // The built-ins after a shader, on the device's memory (packed rows): colour
            // passes in place, a layer from a copy of it back into it.
            let between = stepsAfter.map { steps -> (@Sendable (UnsafeMutablePointer<UInt32>) -> Void)? in
                guard !steps.isEmpty else { return nil }
                return { pixels in
                    for step in steps {
                        switch step {
                        case .colors(let colors):
                            ColorPass(colors).render(from: pixels, stride: w, into: pixels, stride: w, context: context)
                        case .layer(let layer):
                            Self.scratch.withLock { copy in
                                if copy.count != w * h { copy = [UInt32](repeating: 0, count: w * h) }
                                copy.withUnsafeMutableBufferPointer { c in
                                    c.baseAddress!.update(from: pixels, count: w * h)
                                    layer.render(SourceImage(base: c.baseAddress!, width: w, height: h, stride: w), into: pixels,
                                                 destinationStride: w, context: context)
                                }
                            }
                        }
                    }
                }
            }
            try ShaderProgram.run(shaders.map(\.part), source: source.base, sourceStride: source.stride, destination: destination,
                                  destinationStride: destinationStride, width: w, height: h, time: context.time, tick: context.tick,
                                  frameRate: context.frameRate?.seconds, between: between)
        } catch {
            // Left as it came; the failure is kept by every shader of the run, so the chain
            // finds it whichever entry it asks first.
            for y in 0..<h { for x in 0..<w { destination[y * destinationStride + x] = source.base[y * source.stride + x] } }
            for shader in shaders {
                shader.failures.record(error.message)
                shader.program.record(error.message)
            }
        }
    }
}
