import FrameCore
import Testing

@Suite struct RationalTests {
    @Test func reducesAndNormalisesSign() {
        let r = Rational(6, -4)
        #expect(r.numerator == -3 && r.denominator == 2)
    }

    @Test(arguments: [
        ("30", Rational(30)), ("29.97", Rational(30000, 1001)), ("30000/1001", Rational(30000, 1001)),
        ("0.5", Rational(1, 2)), ("12.25", Rational(49, 4)), ("23.976", Rational(24000, 1001)), ("1/3", Rational(1, 3)),
    ])
    func parses(text: String, value: Rational) {
        #expect(Rational(text) == value)
    }

    @Test(arguments: ["", "abc", "1/0", "1.2.3", "1e3"])
    func rejects(text: String) {
        #expect(Rational(text) == nil)
    }

    @Test func comparesWithoutOverflow() {
        let a = Rational(Int64.max / 3, 1_000_003)
        let b = Rational(Int64.max / 3 - 1, 1_000_003)
        #expect(b < a)
        #expect(Rational(1, 3) < Rational(334, 1000))
    }

    @Test func floorInATimeBase() {
        #expect(Rational(1, 2).floor(in: Rational(1, 15360)) == 7680)
        #expect(Rational(1, 3).floor(in: Rational(1, 1000)) == 333)
        #expect(Rational(-1, 3).floor(in: Rational(1, 1000)) == -334)
        #expect(Rational(1001, 30000).floor(in: Rational(1001, 30000)) == 1)
    }

    @Test func arithmeticIsExact() {
        #expect(Rational(1, 3) + Rational(1, 6) == Rational(1, 2))
        #expect(Rational(1, 3) - Rational(1, 2) == Rational(-1, 6))
        #expect(Rational(1001, 30000) * 30000 == Rational(1001))
    }
}

@Suite struct FrameTests {
    @Test func rowsAreAligned() {
        let f = Frame(width: 161, height: 3)
        #expect(f.bytesPerRow % FramePool.alignment == 0)
        #expect(f.bytesPerRow >= 161 * 4)
    }

    @Test func copiesShareUntilWritten() {
        var a = Frame(width: 4, height: 4)
        a.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 7) }
        var b = a
        #expect(a.sharesPixels(with: b))
        b.withUnsafeMutableBytes { $0[0] = 9 }
        #expect(!a.sharesPixels(with: b))
        #expect(a.pixel(x: 0, y: 0).b == 7)
        #expect(b.pixel(x: 0, y: 0).b == 9)
    }

    @Test func poolRecyclesBuffersAndStaysBounded() {
        let pool = FramePool(capacity: 3)
        do {
            let frames = (0..<6).map { _ in Frame(width: 64, height: 64, pool: pool) }
            #expect(frames.count == 6)
            #expect(pool.idleCount == 0)
        }
        #expect(pool.idleCount == 3)  // three kept, three freed
        let again = Frame(width: 64, height: 64, pool: pool)
        #expect(pool.idleCount == 2)
        _ = again
    }

    @Test func packedBytesDropRowPadding() {
        var f = Frame(width: 3, height: 2)
        f.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 1) }
        #expect(f.packedBytes().count == 3 * 4 * 2)
    }
}
