import FrameCore
import TestSupport
import Render
import Testing

/// `apply --keyframes-at` (issue 49): cut lists in every form `scenes` and PySceneDetect
/// write, and the output ticks a cut first shows at.
@Suite struct CutTimesTests {
    @Test func everyFormReadsTheSameTimes() throws {
        let want = [Rational(2), Rational(7, 2), Rational(47, 10)]
        let json = #"{"cuts": [{"frame": 60, "time": 2, "score": 40.1}, {"frame": 105, "time": 3.5, "score": 30}, {"frame": 141, "time": 4.7, "score": 28}], "scenes": []}"#
        let csv = "Timecode List:,00:00:02.000,00:00:03.500,00:00:04.700\nScene Number,Start Frame\n1,1\n"
        for text in [json, csv, "2, 3.5\n0:04.7", "4.7 2 3.5 2"] {
            #expect(try CutTimes.parse(text, file: "cuts.txt").seconds == want, "\(text)")
        }
        #expect(try CutTimes.parse("", file: "empty.txt").seconds.isEmpty)
        // A picture's time printed to the microsecond (244/30 s as 8.133333) is its tick.
        #expect(try CutTimes.parse("8.133333", file: "x").ticks(start: Rational(0), length: nil, speed: Rational(1), frameRate: Rational(30)) == [244])
        #expect(CutTimes([Rational(244, 30)]).ticks(start: Rational(0), length: nil, speed: Rational(1), frameRate: Rational(30)) == [244])
        // Times too large to be a clip's are not times (and overflow nothing).
        #expect(throws: RenderError.self) { try CutTimes.parse("1099511627775:0:0.000001", file: "x") }
    }

    @Test func aWordThatIsNotATimeIsNamed() throws {
        for (text, word) in [("2, soon, 4", "soon"), ("1:2:3:4", "1:2:3:4"), ("-2", "-2")] {
            #expect {
                try CutTimes.parse(text, file: "cuts.txt")
            } throws: { error in
                (error as? RenderError)?.message.contains("cuts.txt: '\(word)' is not a time") == true
            }
        }
        #expect(throws: RenderError.self) { try CutTimes.parse(#"{"scenes": []}"#, file: "x.json") }
        // JSON is read by its type: a time is a number of seconds, within what a clip can be
        // (1e300 once overflowed the microsecond count); only `time` is needed.
        for bad in [#"{"cuts": [{"time": "2"}]}"#, #"{"cuts": [{"time": -1}]}"#, #"{"cuts": [{"time": 1e300}]}"#, #"{"cuts": [{"frame": 3}]}"#] {
            #expect(throws: RenderError.self, "\(bad)") { try CutTimes.parse(bad, file: "x.json") }
        }
        #expect(try CutTimes.parse(#"{"cuts": [{"time": 1.5}]}"#, file: "x.json").seconds == [Rational(3, 2)])
    }

    /// Tick k shows the source at start + speed·k/rate: a cut shows from the first tick at
    /// or after it; ranges, speed and loops move it, tick 0 and ticks past the end are dropped.
    @Test func ticksAreWhereTheCutsFirstShow() {
        let cuts = CutTimes([Rational(0), Rational(2), Rational(7, 2), Rational(1, 45), Rational(9)])
        let thirty = Rational(30)
        #expect(cuts.ticks(start: Rational(0), length: nil, speed: Rational(1), frameRate: thirty) == [60, 105, 1, 270])
        #expect(cuts.ticks(start: Rational(0), length: nil, speed: Rational(1), frameRate: thirty, total: 270) == [60, 105, 1])
        #expect(cuts.ticks(start: Rational(0), length: nil, speed: Rational(2), frameRate: thirty) == [30, 53, 1, 135])
        #expect(cuts.ticks(start: Rational(1), length: Rational(3), speed: Rational(1), frameRate: thirty) == [30, 75])
        // Two passes of [1, 4): each pass's cuts, the second 90 ticks on.
        #expect(cuts.ticks(start: Rational(1), length: Rational(3), speed: Rational(1), frameRate: thirty, passes: 2) == [30, 75, 120, 165])
        #expect(cuts.ticks(start: Rational(0), length: nil, speed: Rational(1), frameRate: Rational(30000, 1001)) == [60, 105, 1, 270])
    }

    /// Cut lists are read from files: random text of the characters that matter (digits,
    /// separators, colons, slashes, signs, JSON's punctuation) parses to times at or
    /// after 0 or fails with a RenderError, never anything else.
    @Test func randomTextParsesOrFailsCleanly() {
        var generator = SeededGenerator("randomTextParsesOrFailsCleanly", seed: 3000)
        let alphabet = Array("0123456789.:/,; \n-+e{}[]\"timecuts:TimecodeList")
        for _ in 0..<3000 {
            let text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            do {
                let cuts = try CutTimes.parse(text, file: "random.txt")
                #expect(cuts.seconds.allSatisfy { $0 >= Rational(0) }, "\(text)")
                #expect(cuts.seconds == cuts.seconds.sorted())
            } catch {
                #expect(error.message.hasPrefix("random.txt: "), "\(text): \(error)")
            }
        }
    }
}
