import Effects
import Foundation
import FrameCore
@testable import Shaders
import TestSupport
import Testing

/// A run of shaders in the chain is one pass on the device (one copy of the frame there,
/// one back: issue 66's engine): the same pixels as each shader in turn, a program that
/// comes twice kept to passes of its own, and a failure named by the shader that failed.
@Suite struct ShaderRunTests {
    static func files(_ scratch: ScratchDirectory) throws {
        try "uniform float amount; // default 1\nvec4 effect(vec2 p, vec4 c) { return vec4(mix(c.rgb, c.gbr, amount), c.a); }\n"
            .write(toFile: scratch.path("rotate.glsl"), atomically: false, encoding: .utf8)
        try "vec2 effect(vec2 p) { return vec2(size.x - p.x, p.y + 3.25); }\n".write(toFile: scratch.path("mirror.glsl"), atomically: false, encoding: .utf8)
        try "vec4 effect(vec2 p) { return 0.5 * source(p) + 0.25 * source(p + vec2(7.5, 0.0)) + 0.25 * source(p - vec2(0.0, 4.5)); }\n"
            .write(toFile: scratch.path("smear.glsl"), atomically: false, encoding: .utf8)
    }

    @Test func aRunIsTheShadersInTurn() throws {
        ShaderEffect.register()
        let scratch = try ScratchDirectory("vidfx-shader-run")
        try Self.files(scratch)
        let (r, m, s) = (scratch.path("rotate.glsl"), scratch.path("mirror.glsl"), scratch.path("smear.glsl"))
        let input = try ShaderProgramTests.frame()
        for text in ["\(r):amount=0.4,\(m),\(s)", "\(m),\(s)", "\(s),sepia=0.5,\(r),\(m)", "\(r),\(r):amount=0.5,\(m)", "\(m):enable=0-1,\(s)",
                     "\(m),vignette,exposure=0.4,\(s),posterize=4,\(r)", "\(s),sepia=0.3:enable=0-1,\(m)", "hue=40,\(m),gamma=1.3",
                     "\(r),pixelate=4,\(m)", "\(s),zoomblur=3,sepia,text=hi:size=20,\(m)", "\(m),crop:rect=10,10,100,80,\(s)",
                     "\(r),pixelate=6:enable=0-1,\(s)", "\(s),pixelate=5,\(m),blur,\(r)"] {
            let joined = try EffectChain(parsing: text)
            let apart = try EffectChain(parsing: text, fuse: false)
            let a = ShaderProgramTests.pixels(joined.apply(to: input, time: 0.5))
            let b = ShaderProgramTests.pixels(apart.apply(to: input, time: 0.5))
            #expect(a == b, "\(text): a run differs from its shaders in turn")
            #expect(a != ShaderProgramTests.pixels(input), "\(text) did nothing")
            #expect(joined.failure == nil && apart.failure == nil)
        }
        // Each shader in turn by hand: what the run must equal.
        var one = input
        for path in [r, m, s] { one = try EffectChain(parsing: path).apply(to: one) }
        let run = try EffectChain(parsing: "\(r),\(m),\(s)").apply(to: input)
        #expect(ShaderProgramTests.pixels(run) == ShaderProgramTests.pixels(one))
    }

    /// The chain joins shaders into one layer with the built-ins between them; a program
    /// twice, or a layer that changes the size, ends the run.
    @Test func whatIsJoined() throws {
        ShaderEffect.register()
        let scratch = try ScratchDirectory("vidfx-shader-run-joins")
        try Self.files(scratch)
        let (r, m, s) = (scratch.path("rotate.glsl"), scratch.path("mirror.glsl"), scratch.path("smear.glsl"))
        /// The chain's layer passes: a run as its shaders' count, a built-in layer as 0.
        func passes(_ text: String) throws -> [Int] {
            try EffectChain(parsing: text).layerPasses.map { ($0 as? ShaderRun)?.shaders.count ?? ($0 is ShaderEffect ? 1 : 0) }
        }
        #expect(try passes("\(r),\(m),\(s)") == [3])
        #expect(try passes("\(r),\(r):amount=0.2") == [1, 1], "one program twice is two passes")
        #expect(try passes("\(r),vignette,sepia,\(m),hue=20,\(s)") == [3], "colour effects between shaders run on the device's memory")
        #expect(try passes("\(r),pixelate=4,\(m)") == [2], "a built-in layer between runs on the device's memory too")
        #expect(try passes("\(r),zoomblur=2,vignette,text=hi,\(m),\(s)") == [3])
        #expect(try passes("\(r),crop:rect=10,10,100,80,\(m)") == [1, 0, 1], "a layer that changes the size ends the run")
        #expect(try passes("\(r),pixelate=4") == [1, 0], "a built-in after the last shader is a pass of its own")
        #expect(try passes("pixelate=4,\(r),\(m),zoomblur") == [0, 2, 0])
    }

    /// A program twice in one run is refused by the shim itself, in one line.
    @Test func theShimRefusesAProgramTwice() throws {
        let program = try ShaderProgram(try ShaderSource("vec4 effect(vec2 p, vec4 c) { return c; }", name: "same.glsl"))
        var frame = Frame(width: 8, height: 2)
        let stride = frame.bytesPerRow / 4
        do {
            try frame.withUnsafeMutableBytes { (b: UnsafeMutableRawBufferPointer) throws(ShaderError) in
                let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
                try ShaderProgram.run([.init(program), .init(program)], source: p, sourceStride: stride, destination: p, destinationStride: stride,
                                      width: 8, height: 2, time: 0, tick: 0)
            }
            Issue.record("a program twice in a run was run")
        } catch {
            #expect(error.message == "same.glsl: a run holds one shader program twice", "\(error.message)")
        }
    }
}
