import Foundation
public import FrameCore

extension SceneScan {
    /// The scores as PySceneDetect 0.7's stats file (`scenedetect -s FILE`) lays them out
    /// for the scan's detector: `Frame Number` from 1, `Timecode` to the millisecond, the
    /// detector's own column (`content_val`, `average_rgb`, `hash_dist [size=8
    /// lowpass=2]`, `hist_diff [bins=128]`) and its parts (the content and adaptive
    /// detectors' `delta_hue`, `delta_sat`, `delta_lum`, `delta_edges`, and the adaptive
    /// ratio), numbers as Python prints them (the shortest text that reads back the same). Detectors that compare a picture with the one
    /// before have no row for the first picture; the threshold detector has one. Empty
    /// unless the scan recorded its scores.
    public var statsFile: String {
        Self.statsFile(scores, detectorName: detectorName, measures: measures, columns: measureColumns)
    }

    /// The stats file of `scores` from the detector named `detectorName` (see ``statsFile``),
    /// with the score's parts in `measures` (by picture number and column) under `columns`:
    /// every column sorted by name as PySceneDetect sorts them, `None` where a picture has
    /// no value (the adaptive ratio of the last pictures).
    public static func statsFile(_ scores: [(frame: Int, time: Rational, score: Double)], detectorName: String,
                                 measures: [Int: [String: Double]] = [:], columns: [String] = []) -> String {
        let column = switch detectorName {
        case "threshold": "average_rgb"
        case "hash": "hash_dist [size=8 lowpass=2]"
        case "histogram": "hist_diff [bins=128]"
        default: "content_val"  // content, and adaptive, which writes the content score too
        }
        let rows = detectorName == "threshold" ? scores[...] : scores.dropFirst()
        // Python's sorted(): by code point, which for these ASCII names is byte order.
        let names = ([column] + columns).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let lines = ["Frame Number,Timecode," + names.map(csvField).joined(separator: ",")] + rows.map { row in
            let parts = measures[row.frame] ?? [:]
            let values = names.map { $0 == column ? "\(row.score)" : parts[$0].map { "\($0)" } ?? "None" }
            return "\(row.frame + 1),\(timecode(row.time))," + values.joined(separator: ",")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// HH:MM:SS.mmm, rounded to the millisecond.
    static func timecode(_ t: Rational) -> String {
        let ms = max(0, Int((t.seconds * 1000).rounded()))
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// A CSV field, quoted when it holds a comma or a quote.
    static func csvField(_ text: String) -> String {
        text.contains(",") || text.contains("\"") ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}
