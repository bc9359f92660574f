import Effects
import Foundation
import FrameCore
import Testing

/// Parameters over time and effects limited to time ranges, evaluated at each frame's
/// exact time: a keyframed chain at time t renders exactly what the constant chain with
/// the values at t renders.
@Suite struct KeyframeTests {
    let frame = Fixture.random()

    func same(_ a: String, at t: Double, as b: String) throws -> Bool {
        Fixture.sameBytes(try EffectChain(parsing: a).apply(to: frame, time: t), try EffectChain(parsing: b).apply(to: frame, time: t))
    }

    @Test func aFadeIsTheConstantEffectAtEachMoment() throws {
        let fade = "sepia:amount=0@0,1@2s"
        #expect(try same(fade, at: 0, as: "sepia=0"))
        #expect(try same(fade, at: 0.5, as: "sepia=0.25"))
        #expect(try same(fade, at: 1, as: "sepia=0.5"))
        #expect(try same(fade, at: 2, as: "sepia=1"))
        #expect(try same(fade, at: 9, as: "sepia=1"), "after the last key, the last value holds")
        #expect(try same("sepia:amount=0.2@1,0.6@3", at: 0, as: "sepia=0.2"), "before the first key, the first value holds")
    }

    @Test func easingAndWholeNumbers() throws {
        // inout (smoothstep) at a quarter of the way: 0.15625 of the change.
        #expect(try same("pixelate:size=4@0,36@4:ease=inout", at: 1, as: "pixelate=9"))  // 4 + 32 × 0.15625 = 9
        #expect(try same("pixelate:size=4@0,40@3", at: 1, as: "pixelate=16"))
        #expect(try same("pixelate:size=4@0,40@3:ease=hold", at: 2.9, as: "pixelate=4"))
        #expect(try same("sepia:amount=0@0,1@2:ease=in", at: 1, as: "sepia=0.25"))
        #expect(try same("sepia:amount=0@0,1@2:ease=out", at: 1, as: "sepia=0.75"))
    }

    @Test func coloursAndVectorsMoveComponentByComponent() throws {
        #expect(try same("monochrome:color=#FF0000@0,#0000FF@2", at: 1, as: "monochrome:color=0.5,0,0.5"))
        #expect(try same("tonecurve:p1=0.25,0.1@0,0.25,0.3@2s", at: 1, as: "tonecurve:p1=0.25,0.2"))
    }

    @Test func timesTakeSecondsMillisecondsAndMinutes() throws {
        #expect(try same("sepia:amount=0@0,1@1:00", at: 30, as: "sepia=0.5"))
        #expect(try same("sepia:amount=0@0,1@500ms", at: 0.25, as: "sepia=0.5"))
    }

    @Test func anEffectRunsOnlyInItsRanges() throws {
        let identity = "colormatrix"  // its defaults change nothing
        for text in ["sepia:enable=1-2", "sepia:enable=0:01-0:02", "sepia:enable=5-6,1-2"] {
            #expect(try same(text, at: 0.5, as: identity), "\(text)")
            #expect(try same(text, at: 1, as: "sepia"), "\(text): the start is in")
            #expect(try same(text, at: 1.5, as: "sepia"), "\(text)")
            #expect(try same(text, at: 2, as: identity), "\(text): the end is out")
        }
        #expect(try same("sepia:enable=30-", at: 3000, as: "sepia"), "an open end runs to the end")
        #expect(try same("pixelate=8:enable=1-2,sepia", at: 0, as: "sepia"))
        #expect(try same("pixelate=8:enable=1-2,sepia", at: 1, as: "pixelate=8,sepia"))
    }

    @Test func renderingIsTheSameInAnyOrder() throws {
        let chain = try EffectChain(parsing: "sepia:amount=0@0,1@2,hue:angle=0@0,180@2:enable=0.5-")
        let times = [1.0, 0.25, 1.75, 1.0, 0.25]
        let outs = times.map { chain.apply(to: frame, time: $0) }
        #expect(Fixture.sameBytes(outs[0], outs[3]) && Fixture.sameBytes(outs[1], outs[4]))
        #expect(!Fixture.sameBytes(outs[0], outs[1]))
    }

    @Test(arguments: [
        ("sepia:amount=0@0,1@0", "two keys at 0 s"),
        ("sepia:amount=0@0,2@1", "out of range"),
        ("sepia:amount=0@0,1@x", "'x' is not a time"),
        ("sepia:amount=0@0,1", "value@time pairs"),
        ("sepia:enable=2-1", "ends before it starts"),
        ("sepia:enable=soon", "enable must be time ranges"),
        ("sepia:ease=bouncy", "ease must be one of linear, in, out, inout, hold"),
    ])
    func mistakesAreNamed(chain: String, message: String) {
        #expect {
            _ = try EffectChain(parsing: chain)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func theChainSaysWhatVariesAndPrintsItsKeys() throws {
        #expect(try !EffectChain(parsing: "sepia=0.5").variesInTime)
        let chain = try EffectChain(parsing: "sepia:amount=0@0,1@2s")
        #expect(chain.variesInTime)
        #expect(chain.description == "sepia:amount=0@0,1@2")
        #expect(Sepia.descriptor.parameter("amount")?.isAnimatable == true)
        #expect(Pixelate.descriptor.parameter("mode")?.isAnimatable == false)
    }
}
