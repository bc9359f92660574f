import CPixelKernels
import Foundation
@testable import FrameSource
import Testing

/// The field measure on pictures made here: vertical bars moving sideways, seen as
/// progressive pictures, as woven fields in either order, standing still, and as grain.
@Suite struct FieldEvidenceTests {
    static let (width, height) = (96, 64)

    /// Luma of bars 6 px wide, 40 and 200, moved `shift` px left; `grain` adds
    /// noise of that amplitude from `seed`.
    static func bars(_ shift: Int, grain: Int = 0, seed: UInt64 = 1) -> [UInt8] {
        var rng = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<(width * height)).map { i in
            let x = i % width + shift
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            let noise = grain == 0 ? 0 : Int(rng >> 33) % (2 * grain + 1) - grain
            return UInt8(clamping: ((x / 6) % 2 == 0 ? 40 : 200) + noise)
        }
    }

    /// A picture with its top field (even rows) from `top` and its bottom field from `bottom`.
    static func weave(_ top: [UInt8], _ bottom: [UInt8]) -> [UInt8] {
        (0..<(width * height)).map { i in (i / width) % 2 == 0 ? top[i] : bottom[i] }
    }

    static func vote(_ a: [UInt8], _ b: [UInt8], bytes: Int32 = 1) -> FieldEvidence.Vote {
        let counts: vfx_field_comb_counts
        if bytes == 1 {
            counts = vfx_field_comb(a, width, b, width, Int32(width), Int32(height), 1, 8)
        } else {
            // The same pictures as 10-bit little-endian samples.
            let wide = { (p: [UInt8]) in p.flatMap { v -> [UInt8] in let s = UInt16(v) << 2; return [UInt8(s & 0xff), UInt8(s >> 8)] } }
            counts = vfx_field_comb(wide(a), 2 * width, wide(b), 2 * width, Int32(width), Int32(height), 2, 10)
        }
        return FieldEvidence.vote(counts, area: width * height)
    }

    // Motion of 2 px a field: progressive pictures are 4 px apart.
    @Test(arguments: [Int32(1), 2])
    func progressivePicturesVoteProgressive(bytes: Int32) {
        #expect(Self.vote(Self.bars(0), Self.bars(4), bytes: bytes) == .progressive)
    }

    @Test(arguments: [Int32(1), 2])
    func wovenFieldsVoteInterlacedInTheirOrder(bytes: Int32) {
        let topFirst = (Self.weave(Self.bars(0), Self.bars(2)), Self.weave(Self.bars(4), Self.bars(6)))
        let bottomFirst = (Self.weave(Self.bars(2), Self.bars(0)), Self.weave(Self.bars(6), Self.bars(4)))
        #expect(Self.vote(topFirst.0, topFirst.1, bytes: bytes) == .interlaced(topFirst: true))
        #expect(Self.vote(bottomFirst.0, bottomFirst.1, bytes: bytes) == .interlaced(topFirst: false))
    }

    /// 16-bit samples are read a few rows at a time (a ring, not a copy of the plane): the
    /// counts must be exactly those of the same pictures at 8 bits, on grainy woven
    /// pictures with padded rows, for 10- and 12-bit depths.
    @Test(arguments: [10, 12])
    func sixteenBitRowsCountAsTheirEightBitPictures(depth: Int) {
        let a = Self.weave(Self.bars(0, grain: 12, seed: 3), Self.bars(2, grain: 12, seed: 4))
        let b = Self.weave(Self.bars(4, grain: 12, seed: 5), Self.bars(6, grain: 12, seed: 6))
        let (w, h, pad) = (Self.width, Self.height, 7)
        func padded8(_ p: [UInt8]) -> [UInt8] { (0..<h).flatMap { y in p[(y * w)..<(y * w + w)] + [UInt8](repeating: 255, count: pad) } }
        func padded16(_ p: [UInt8]) -> [UInt8] {
            (0..<h).flatMap { y -> [UInt8] in
                // Low bits that narrowing drops, so only the top 8 of `depth` bits count.
                let row = p[(y * w)..<(y * w + w)].flatMap { v -> [UInt8] in
                    let s = UInt16(v) << (depth - 8) | UInt16((1 << (depth - 8)) - 1)
                    return [UInt8(s & 0xff), UInt8(s >> 8)]
                }
                return row + [UInt8](repeating: 0xff, count: 2 * pad)
            }
        }
        let narrow = vfx_field_comb(padded8(a), w + pad, padded8(b), w + pad, Int32(w), Int32(h), 1, 8)
        let wide = vfx_field_comb(padded16(a), 2 * (w + pad), padded16(b), 2 * (w + pad), Int32(w), Int32(h), 2, Int32(depth))
        #expect(narrow.moving > 0 && narrow.as_is > 0)
        #expect([wide.moving, wide.as_is, wide.next_top, wide.next_bottom]
            == [narrow.moving, narrow.as_is, narrow.next_top, narrow.next_bottom])
    }

    /// Horizontal bars 16 lines high moving 3 lines a field: woven, they leave few comb teeth, so
    /// the field order shows in the mixed weaves alone.
    @Test func verticalMotionVotesByItsFieldOrder() {
        func rows(_ shift: Int) -> [UInt8] { (0..<(Self.width * Self.height)).map { i in ((i / Self.width + shift) / 16) % 2 == 0 ? 40 : 200 } }
        #expect(Self.vote(rows(0), rows(6)) == .progressive)
        #expect(Self.vote(Self.weave(rows(0), rows(3)), Self.weave(rows(6), rows(9))) == .interlaced(topFirst: true))
        #expect(Self.vote(Self.weave(rows(3), rows(0)), Self.weave(rows(9), rows(6))) == .interlaced(topFirst: false))
    }

    /// Text and fine detail: lines one row high stand out from both neighbours too, but
    /// as much from their own field's; they are not combing.
    @Test func thinLinesMovingInProgressivePicturesAreNotCombing() {
        func text(_ shift: Int) -> [UInt8] {
            var p = Self.bars(shift)
            for y in stride(from: 1, to: Self.height, by: 4) {
                for x in 0..<Self.width { p[y * Self.width + x] = ((x + 3 * shift) / 5) % 2 == 0 ? 255 : 0 }
            }
            return p
        }
        #expect(Self.vote(text(0), text(4)) == .progressive)
    }

    @Test func stillPicturesAndGrainDoNotVoteInterlaced() {
        #expect(Self.vote(Self.bars(0), Self.bars(0)) == .noMotion)
        // Grain alone changes every pixel from picture to picture, in no field order.
        let grain = Self.vote(Self.bars(0, grain: 30, seed: 1), Self.bars(0, grain: 30, seed: 2))
        #expect(grain != .interlaced(topFirst: true) && grain != .interlaced(topFirst: false), "\(grain)")
    }

    /// One pair settles it only when the picture is far cleaner than both mixed weaves.
    @Test func aFirstPairClearlyProgressiveSettlesAtOnce() {
        var clear = FieldEvidence()
        clear.add(vfx_field_comb_counts(moving: 4000, as_is: 3, next_top: 900, next_bottom: 950), area: Self.width * Self.height)
        #expect(clear.settled && clear.fieldOrder == nil && clear.progressive == 1)
        // Progressive, but not by 16 times: a second pair is needed.
        var plain = FieldEvidence()
        plain.add(vfx_field_comb_counts(moving: 4000, as_is: 100, next_top: 900, next_bottom: 950), area: Self.width * Self.height)
        #expect(!plain.settled && plain.progressive == 1)
        // A clear first pair does not settle a later one.
        var later = FieldEvidence()
        later.add(.noMotion)
        later.add(vfx_field_comb_counts(moving: 4000, as_is: 3, next_top: 900, next_bottom: 950), area: Self.width * Self.height)
        #expect(!later.settled)
    }

    @Test func theVerdictNeedsTwoPairsOfOneOrderAndAMajority() {
        var evidence = FieldEvidence()
        evidence.add(.interlaced(topFirst: true))
        #expect(evidence.fieldOrder == nil && !evidence.settled)
        evidence.add(.interlaced(topFirst: true))
        #expect(evidence.fieldOrder == true && evidence.settled)

        var mixed = FieldEvidence()
        for vote in [FieldEvidence.Vote.interlaced(topFirst: false), .progressive, .interlaced(topFirst: false), .progressive] { mixed.add(vote) }
        #expect(mixed.fieldOrder == nil && !mixed.settled)
        mixed.add(.interlaced(topFirst: false))
        #expect(mixed.fieldOrder == false)

        var quiet = FieldEvidence()
        for _ in 0..<7 { quiet.add(.noMotion) }
        #expect(quiet.fieldOrder == nil && !quiet.settled && quiet.pairs == 7)
    }
}
