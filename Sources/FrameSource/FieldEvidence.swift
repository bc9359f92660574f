import CFFmpeg
import CPixelKernels

/// What the first pictures of a stream show of its scan, one vote per pair of
/// consecutive pictures, from the combing their fields make where things move
/// (`vfx_field_comb`). Used where the stream says "progressive" or nothing: libavfilter's
/// idet takes the sharp detail of test patterns for combing (it calls progressive
/// testsrc2 interlaced), while this compares each picture with the weaves of its fields
/// with its neighbour's, so detail that does not move counts for nothing.
struct FieldEvidence {
    /// One pair's vote.
    enum Vote: Equatable {
        /// Nothing moved enough to tell.
        case noMotion
        /// The picture's own fields fit together far better than with its neighbour's.
        case progressive
        /// The fields are two instants, in this order.
        case interlaced(topFirst: Bool)
        /// Combing alike in all three weaves (grain), or measures that point no one way.
        case unclear
    }

    /// Pairs that voted progressive, and interlaced in either field order.
    private(set) var progressive = 0
    private(set) var topFirst = 0
    private(set) var bottomFirst = 0
    /// Pairs measured, whatever their vote.
    private(set) var pairs = 0
    /// Set when the first pair was progressive beyond doubt.
    private var clearlyProgressive = false

    /// The vote of one pair's counts, for pictures of `area` pixels.
    ///
    /// Progressive: the picture as it is combs less than a quarter as much as either
    /// mixed weave (which mix one instant with the next). Interlaced: it combs about as
    /// much as the weave with the nearer field (both are half a picture apart) and the
    /// other weave (one and a half apart) combs at least half as much again as both,
    /// which is what gives the field order. Vertical motion leaves few comb teeth as woven (the
    /// fields are a few lines apart), but one mixed weave combs four times as much as the
    /// other, which progressive pictures (both weaves a whole picture apart) never do.
    /// Grain combs alike in all three and votes neither.
    static func vote(_ c: vfx_field_comb_counts, area: Int) -> Vote {
        let (asIs, nextTop, nextBottom) = (Double(c.as_is), Double(c.next_top), Double(c.next_bottom))
        let floor = Self.floor(area)
        let (near, far) = (min(nextTop, nextBottom), max(nextTop, nextBottom))
        if far < floor { return .noMotion }
        if asIs * 4 < near && near >= floor { return .progressive }
        let halfApart = far * 2 >= near * 3 && far * 2 >= asIs * 3 && asIs * 4 >= near && asIs * 4 >= floor
        let vertical = far >= near * 4 && far >= floor * 4 && asIs * 2 <= far
        return halfApart || vertical ? .interlaced(topFirst: nextTop < nextBottom) : .unclear
    }

    /// Combed pixels that are evidence, in pictures of `area` pixels.
    static func floor(_ area: Int) -> Double { max(32, Double(area) / 1000) }

    /// Counts one pair's vote.
    mutating func add(_ vote: Vote) {
        pairs += 1
        switch vote {
        case .progressive: progressive += 1
        case .interlaced(let top): if top { topFirst += 1 } else { bottomFirst += 1 }
        case .noMotion, .unclear: break
        }
    }

    /// Counts one pair's measure: its vote, and whether it settles the verdict at once.
    mutating func add(_ counts: vfx_field_comb_counts, area: Int) {
        let vote = Self.vote(counts, area: area)
        // A first pair whose picture combs 16 times less than either mixed weave, which
        // comb well above the floor, is progressive beyond doubt (interlaced pictures
        // comb about as much as the nearer weave): a single still need not wait for a
        // third picture.
        let near = Double(min(counts.next_top, counts.next_bottom))
        clearlyProgressive = pairs == 0 && vote == .progressive && Double(counts.as_is) * 16 < near && near >= 2 * Self.floor(area)
        add(vote)
    }

    /// Pairs that voted interlaced, of either order.
    var interlaced: Int { topFirst + bottomFirst }

    /// Whether to stop measuring: the first pair was progressive beyond doubt, or the
    /// first two pairs voted alike (so a still's look-ahead stays short), or three votes
    /// all one way.
    var settled: Bool {
        let alike = pairs == 2 && (progressive == 2 || topFirst == 2 || bottomFirst == 2)
        let three = (progressive >= 3 && interlaced == 0) || (max(topFirst, bottomFirst) >= 3 && progressive == 0)
        return (pairs == 1 && clearlyProgressive) || alike || three
    }

    /// The verdict: nil for progressive (or nothing to go on), else whether the top field
    /// comes first. Interlaced needs two pairs of one field order, and more than voted
    /// progressive.
    var fieldOrder: Bool? {
        let order = max(topFirst, bottomFirst)
        guard order >= 2 && order > progressive else { return nil }
        return topFirst >= bottomFirst
    }

    /// Measures two consecutive pictures and counts the pair; a pair whose format has no
    /// luma plane to measure (RGB, palettes, hardware frames), or of two sizes, counts
    /// as nothing moving.
    mutating func add(_ a: UnsafePointer<AVFrame>, _ b: UnsafePointer<AVFrame>) {
        guard a.pointee.width == b.pointee.width, a.pointee.height == b.pointee.height, a.pointee.format == b.pointee.format,
              let sample = Self.lumaSample(AVPixelFormat(rawValue: a.pointee.format)) else { return add(.noMotion) }
        let counts = vfx_field_comb(vfx_frame_plane(a, 0), ptrdiff_t(vfx_frame_linesize(a, 0)), vfx_frame_plane(b, 0),
                                    ptrdiff_t(vfx_frame_linesize(b, 0)), a.pointee.width, a.pointee.height, sample.bytes, sample.depth)
        add(counts, area: Int(a.pointee.width) * Int(a.pointee.height))
    }

    /// Bytes and bits of a luma sample, for formats whose first plane is luma alone
    /// (planar Y′CbCr and grey, little-endian); nil otherwise.
    static func lumaSample(_ format: AVPixelFormat) -> (bytes: Int32, depth: Int32)? {
        guard let d = av_pix_fmt_desc_get(format) else { return nil }
        let excluded = UInt64(AV_PIX_FMT_FLAG_RGB) | UInt64(AV_PIX_FMT_FLAG_PAL) | UInt64(AV_PIX_FMT_FLAG_HWACCEL)
            | UInt64(AV_PIX_FMT_FLAG_BE) | UInt64(AV_PIX_FMT_FLAG_BITSTREAM)
        let luma = d.pointee.comp.0
        guard d.pointee.flags & excluded == 0, d.pointee.nb_components >= 1, luma.plane == 0, luma.shift == 0, luma.offset == 0 else { return nil }
        switch (luma.step, luma.depth) {
        case (1, 8): return (1, 8)
        case (2, 9...16): return (2, luma.depth)
        default: return nil
        }
    }
}
