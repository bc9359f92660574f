/// A shader's text as tokens, every byte kept (spaces, newlines and comments are tokens
/// too), so that a front end can rewrite words and put the text back together with each
/// of the user's lines where it was: the compiler's messages then name the user's lines.
struct ShaderTokens {
    /// One token.
    struct Token: Equatable {
        enum Kind: Equatable {
            case word, number, punctuation, space, comment, string
            /// Text a front end wrote, passed on as it is.
            case verbatim
        }
        var kind: Kind
        var text: String
        /// Its line in the file, from 1.
        var line: Int
        /// Whether it is a word spelt `text`.
        func isWord(_ text: String) -> Bool { kind == .word && self.text == text }
        /// Whether it is punctuation spelt `text`.
        func isPunctuation(_ text: String) -> Bool { kind == .punctuation && self.text == text }
        /// How many newlines it holds.
        var newlines: Int { text.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } }
    }

    var tokens: [Token]

    /// Two-character operators, kept whole (`::` and `[[` matter to the Metal front end).
    private static let pairs: Set<String> = ["::", "[[", "]]", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=",
                                             "%=", "&=", "|=", "^=", "<<", ">>", "->", "##"]

    init(_ text: String) {
        var tokens: [Token] = []
        let s = Array(text.unicodeScalars)
        var i = 0, line = 1
        func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
        while i < s.count {
            let start = i, c = s[i]
            let kind: Token.Kind
            if c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0B}" || c == "\u{0C}" {
                while i < s.count, [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(s[i]) { i += 1 }
                kind = .space
            } else if c == "/", i + 1 < s.count, s[i + 1] == "/" {
                while i < s.count, s[i] != "\n" { i += 1 }
                kind = .comment
            } else if c == "/", i + 1 < s.count, s[i + 1] == "*" {
                i += 2
                while i + 1 < s.count, !(s[i] == "*" && s[i + 1] == "/") { i += 1 }
                i = min(s.count, i + 2)
                kind = .comment
            } else if isWordStart(c) {
                while i < s.count, isWordStart(s[i]) || isDigit(s[i]) { i += 1 }
                kind = .word
            } else if isDigit(c) || (c == "." && i + 1 < s.count && isDigit(s[i + 1])) {
                // Digits, a point, an exponent with its sign, and suffix letters (1.5h, 2u, 0x1F).
                while i < s.count {
                    let d = s[i]
                    if isDigit(d) || isWordStart(d) || d == "." { i += 1; continue }
                    if (d == "+" || d == "-"), let e = s[i - 1].properties.lowercaseMapping.first, e == "e",
                       !(s[start] == "0" && start + 1 < s.count && (s[start + 1] == "x" || s[start + 1] == "X")) { i += 1; continue }
                    break
                }
                kind = .number
            } else if c == "\"" {
                i += 1
                while i < s.count, s[i] != "\"", s[i] != "\n" { i += 1 }
                i = min(s.count, i + 1)
                kind = .string
            } else {
                if i + 1 < s.count, Self.pairs.contains(String(c) + String(s[i + 1])) { i += 2 } else { i += 1 }
                kind = .punctuation
            }
            var piece = ""
            piece.unicodeScalars.append(contentsOf: s[start..<i])
            tokens.append(Token(kind: kind, text: piece, line: line))
            line += tokens[tokens.count - 1].newlines
        }
        self.tokens = tokens
    }

    /// The text again.
    var text: String { tokens.map(\.text).joined() }

    /// Whether token `j` is only space (a space, a comment, or text blanked).
    func isBlank(_ j: Int) -> Bool {
        let t = tokens[j]
        return t.kind == .space || t.kind == .comment || (t.kind == .verbatim && t.text.allSatisfy(\.isWhitespace))
    }

    /// The index of the next token at or after `i` that is not space or a comment.
    func next(_ i: Int) -> Int? {
        var j = i
        while j < tokens.count {
            if !isBlank(j) { return j }
            j += 1
        }
        return nil
    }

    /// The index of the token before `i` that is not space or a comment.
    func previous(_ i: Int) -> Int? {
        var j = i - 1
        while j >= 0 {
            if !isBlank(j) { return j }
            j -= 1
        }
        return nil
    }

    /// The index of the bracket that closes the one at `open` (`(`, `[`, `{`, `[[`).
    func closing(_ open: Int) -> Int? {
        let pairs = ["(": ")", "[": "]", "{": "}", "[[": "]]"]
        guard let close = pairs[tokens[open].text] else { return nil }
        var depth = 0
        var j = open
        while j < tokens.count {
            let t = tokens[j]
            if t.kind == .punctuation {
                if t.text == tokens[open].text { depth += 1 } else if t.text == close { depth -= 1; if depth == 0 { return j } }
            }
            j += 1
        }
        return nil
    }

    /// Empties tokens `range` in place, keeping their newlines (no index moves).
    mutating func blank(_ range: ClosedRange<Int>) {
        for j in range { tokens[j] = Token(kind: .verbatim, text: String(repeating: "\n", count: tokens[j].newlines), line: tokens[j].line) }
    }

    /// Replaces tokens `range` with `text`, keeping as many newlines as they held (after
    /// `text`), so the lines below stay where they were.
    mutating func replace(_ range: ClosedRange<Int>, with text: String) {
        let newlines = tokens[range].reduce(0) { $0 + $1.newlines }
        let line = tokens[range.lowerBound].line
        tokens.replaceSubrange(range, with: [Token(kind: .verbatim, text: text + String(repeating: "\n", count: newlines), line: line)])
    }
}
