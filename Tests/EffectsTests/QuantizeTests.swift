import Testing
@testable import Effects

/// Pixel.quantize is the last step of every float colour loop. Both of its forms (tuned
/// builds take one, portable builds the other) are bit tricks, so both are checked
/// against the plain formula, whichever this build uses.
@Suite struct QuantizeTests {
    static let forms: [(String, @Sendable (Float) -> UInt32)] = [
        ("floor", { Pixel.quantizeWithFloor($0) }), ("without floor", { Pixel.quantizeWithoutFloor($0) }), ("quantize", { Pixel.quantize($0) }),
    ]

    static func reference(_ v: Float) -> UInt32 { UInt32(min(max((v + 0.5).rounded(.down), 0), 255)) }

    @Test(arguments: 0..<3) func matchesRoundHalfUpAndClampEverywhere(form: Int) {
        let (name, quantize) = Self.forms[form]
        // Every 1/4096 from -4 to 260 (all ties and their neighbours included), and each
        // half-way point's float neighbours, where round-to-even and round-half-up differ.
        var v: Float = -4, mismatches: [Float] = []
        while v <= 260 {
            if quantize(v) != Self.reference(v) { mismatches.append(v) }
            v += 1.0 / 4096
        }
        for k in -2...257 {
            let tie = Float(k) + 0.5
            for x in [tie.nextDown, tie, tie.nextUp] where quantize(x) != Self.reference(x) { mismatches.append(x) }
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.prefix(10))")
    }

    @Test(arguments: 0..<3) func extremesClamp(form: Int) {
        let (name, quantize) = Self.forms[form]
        #expect(quantize(-1e30) == 0 && quantize(1e30) == 255)
        #expect(quantize(-.infinity) == 0 && quantize(.infinity) == 255)
        #expect(quantize(0.49) == 0 && quantize(0.5) == 1 && quantize(254.5) == 255)
        #expect(quantize(1.5) == 2 && quantize(2.5) == 3, "\(name): half up, not to even")
    }
}
