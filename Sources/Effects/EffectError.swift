public import FrameCore
/// Why an effect chain could not be built. The description is one line that names
/// the effect or parameter and, where it helps, shows the valid values.
public struct EffectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public let message: String

    /// Creates an error with a message.
    public init(_ message: String) { self.message = message }

    public var description: String { message }

    static func unknownEffect(_ name: String) -> EffectError {
        var text = "unknown effect '\(name)'"
        if let hint = ForeignEffectNames.hint(for: name) {
            text += " (\(hint))"
        } else if let guess = closest(to: name, in: EffectRegistry.names) {
            text += " (did you mean '\(guess)'?)"
        }
        return EffectError(text + "; `vidfx effects` lists them")
    }

    static func unknownParameter(_ name: String, effect: EffectDescriptor) -> EffectError {
        let names = effect.parameters.map(\.name)
        var text = "\(effect.name): unknown parameter '\(name)'"
        if let guess = closest(to: name, in: names) { text += " (did you mean '\(guess)'?)" }
        text += names.isEmpty ? "; it takes no parameters" : "; parameters: " + names.joined(separator: ", ")
        return EffectError(text)
    }

    /// Closest candidate by edit distance, when close enough to be a typo: one edit in a
    /// word of up to four letters, two up to eight, three beyond (two edits make `lut` of
    /// `blur`, which is no typo). Swapped neighbours count as one edit (`dupm`, `dump`).
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let allowed = word.count <= 4 ? 1 : word.count <= 8 ? 2 : 3
        return best.1 <= allowed ? best.0 : nil
    }

    /// Insertions, deletions, substitutions and swaps of neighbours (optimal string alignment).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)  // row i - 2
        var last = Array(0...b.count)                          // row i - 1
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                row[j] = Swift.min(last[j] + 1, row[j - 1] + 1, last[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = Swift.min(row[j], before[j - 2] + 1) }
            }
            (before, last, row) = (last, row, before)
        }
        return last[b.count]
    }
}

extension EffectError: UserFacingError {}
