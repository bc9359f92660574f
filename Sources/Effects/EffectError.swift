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
        if let guess = closest(to: name, in: EffectRegistry.names) { text += " (did you mean '\(guess)'?)" }
        return EffectError(text + "; `vidfx effects` lists them")
    }

    static func unknownParameter(_ name: String, effect: EffectDescriptor) -> EffectError {
        let names = effect.parameters.map(\.name)
        var text = "\(effect.name): unknown parameter '\(name)'"
        if let guess = closest(to: name, in: names) { text += " (did you mean '\(guess)'?)" }
        text += names.isEmpty ? "; it takes no parameters" : "; parameters: " + names.joined(separator: ", ")
        return EffectError(text)
    }

    /// Closest candidate by edit distance, when close enough to be a typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = Swift.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
