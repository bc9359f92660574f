import CFFmpeg
import Foundation
@testable import FrameSource
import Testing

/// The tone map's table is filled with zimg (the library behind libavfilter's zscale) and
/// the `tonemap` filter's curve written out in C, without loading libavfilter. The table
/// libavfilter's own chain makes is the oracle: every curve, both transfers, two peaks.
@Suite struct ToneTableTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var transfer: AVColorTransferCharacteristic
        var curve: String
        var peakNits: Double
        var testDescription: String { "\(transfer == AVCOL_TRC_ARIB_STD_B67 ? "HLG" : "PQ") \(curve) \(Int(peakNits)) nits" }
    }

    static let cases: [Case] = [AVCOL_TRC_ARIB_STD_B67, AVCOL_TRC_SMPTE2084].flatMap { t in
        ["mobius", "hable", "reinhard", "clip"].map { Case(transfer: t, curve: $0, peakNits: 1000) }
    } + [Case(transfer: AVCOL_TRC_SMPTE2084, curve: "mobius", peakNits: 4000), Case(transfer: AVCOL_TRC_ARIB_STD_B67, curve: "mobius", peakNits: 203)]

    @Test(arguments: cases)
    func tableEqualsWhatLibavfiltersChainMakes(_ c: Case) throws {
        var color = StreamColor()
        color.transfer = c.transfer
        color.primaries = AVCOL_PRI_BT2020
        let table = try ToneMap.buildTable(color: color, curve: c.curve, peakNits: c.peakNits, input: "grid")
        let reference = try ToneMap.referenceTable(color: color, linearChain: ToneMap.linearChain(curve: c.curve, peakNits: c.peakNits),
                                                   chain: ToneMap.chain(curve: c.curve, peakNits: c.peakNits), input: "grid")
        try #require(table.count == reference.count)
        var worst: Float = 0, differing = 0, scale: Float = 0
        for i in table.indices {
            let d = abs(table[i] - reference[i])
            if d > 0 { differing += 1 }
            worst = max(worst, d)
            scale = max(scale, abs(reference[i]))
        }
        // Not a table of zeros or copies of one value: the chain's output spans a range.
        #expect(scale > 0.5)
        #expect(worst == 0, "\(c.testDescription): largest difference \(worst), \(differing) of \(table.count) values differ")
    }
}
