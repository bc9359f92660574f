/// Quoting in the chain syntax, for values that hold its separators (a caption with a
/// colon or a comma): inside single quotes every character stands for itself
/// (`text='Take 2: the pier, dawn'`), and outside them a backslash makes the next
/// separator or quote literal (`text=Take 2\: the pier`). Other backslashes are kept, so
/// a caption's `\n` reaches the effect.
enum ChainSyntax {
    /// Characters with a meaning in the chain syntax.
    private static let special: Set<Character> = [":", ",", "'", "\\", "=", "@"]

    /// `text` cut at each `separator` outside quotes and not escaped; the pieces keep
    /// their quotes and backslashes (``unquoted(_:)`` removes them from a value).
    static func split(_ text: some StringProtocol, on separator: Character) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if c == "'" {
                quoted.toggle()
                current.append(c)
            } else if c == "\\" && !quoted {
                escaped = true
                current.append(c)
            } else if c == separator && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        pieces.append(current)
        return pieces
    }

    /// Where the first `=` outside quotes and escapes is in `piece`, if any.
    static func firstEquals(in piece: String) -> String.Index? {
        var quoted = false
        var escaped = false
        for i in piece.indices {
            let c = piece[i]
            if escaped { escaped = false } else if c == "'" { quoted.toggle() } else if c == "\\" && !quoted { escaped = true } else if c == "=" && !quoted {
                return i
            }
        }
        return nil
    }

    /// Whether `text` opens a quote it does not close.
    static func hasOpenQuote(_ text: some StringProtocol) -> Bool {
        var quoted = false
        var escaped = false
        for c in text {
            if escaped { escaped = false } else if c == "'" { quoted.toggle() } else if c == "\\" && !quoted { escaped = true }
        }
        return quoted
    }

    /// A value as meant: quotes removed, and the backslash before a special character.
    static func unquoted(_ raw: some StringProtocol) -> String {
        var out = ""
        var quoted = false
        var pending = false
        for c in raw {
            if pending {
                if !special.contains(c) { out.append("\\") }
                out.append(c)
                pending = false
            } else if c == "'" {
                quoted.toggle()
            } else if c == "\\" && !quoted {
                pending = true
            } else {
                out.append(c)
            }
        }
        if pending { out.append("\\") }
        return out
    }

    /// `value` as the chain syntax writes it: quoted when it holds a special character or
    /// edge spaces (a quote inside is written `'\''`, as in a shell).
    static func quoted(_ value: String) -> String {
        guard value.contains(where: { special.contains($0) }) || value.first == " " || value.last == " " else { return value }
        return "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
