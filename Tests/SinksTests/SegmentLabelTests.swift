import Foundation
import Testing
@testable import Sinks

/// A segment's label is read from a file's tags, which are whoever wrote the file's: a
/// damaged or forged label is no label, never a loop over the count it claims.
@Suite struct SegmentLabelTests {
    @Test func labelsRoundTripAndForgeriesAreNoLabel() {
        let label = SegmentLabel(index: 2, count: 4, firstTick: 30, endTick: 60, render: SegmentLabel.fingerprint(["a", "b"]))
        #expect(SegmentLabel(metadata: label.metadata) == label)
        // Tag names come back in any case (Matroska keeps them as written, MP4 as it likes).
        #expect(SegmentLabel(metadata: Dictionary(uniqueKeysWithValues: label.metadata.map { ($0.key.lowercased(), $0.value) })) == label)
        let render = label.render
        for (segment, ticks) in [("1/9223372036854775807", "0-30"), ("1/100001", "0-30"), ("0/4", "0-30"), ("5/4", "0-30"),
                                 ("-1/4", "0-30"), ("1/4/4", "0-30"), ("1/4", "30-30"), ("1/4", "-5-30"), ("1/4", "x-30"), ("", "")] {
            #expect(SegmentLabel(metadata: ["VIDFX_SEGMENT": segment, "VIDFX_TICKS": ticks, "VIDFX_RENDER": render]) == nil, "\(segment) \(ticks)")
        }
        #expect(SegmentLabel(metadata: ["VIDFX_SEGMENT": "1/4", "VIDFX_TICKS": "0-30", "VIDFX_RENDER": String(repeating: "f", count: 65)]) == nil)
        #expect(SegmentLabel(metadata: ["VIDFX_SEGMENT": "1/100000", "VIDFX_TICKS": "0-30", "VIDFX_RENDER": render])?.count == 100_000)
        // Parts that run together differently give different fingerprints.
        #expect(SegmentLabel.fingerprint(["ab", "c"]) != SegmentLabel.fingerprint(["a", "bc"]))
        #expect(SegmentLabel.fingerprint(["a"]).count == 32)
    }
}
