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

    /// Every loop's condition also asks `vfx_go()` (`while (c)` → `while ((c) && vfx_go())`,
    /// `for (a; ; b)` → `for (a; vfx_go(); b)`), so that a run halted past its time limit
    /// ends: a loop is the only way GLSL has to run for ever. Only punctuation is edited,
    /// so every token keeps its line. A condition that declares a variable
    /// (`while (bool b = f())`) does not compile so; such a loop is one compiler line.
    mutating func guardLoops(with call: String) {
        for i in tokens.indices where tokens[i].kind == .word && (tokens[i].text == "while" || tokens[i].text == "for") {
            guard let open = next(i + 1), tokens[open].isPunctuation("("), let close = closing(open) else { continue }
            if tokens[i].text == "while" {
                tokens[open].text = "(("
                tokens[close].text = ") && \(call))"
                continue
            }
            // The two semicolons of `for` at its own depth.
            var depth = 0
            var semicolons: [Int] = []
            for j in (open + 1)..<close where tokens[j].kind == .punctuation {
                switch tokens[j].text {
                case "(", "[", "{": depth += 1
                case ")", "]", "}": depth -= 1
                case ";" where depth == 0: semicolons.append(j)
                default: break
                }
            }
            guard semicolons.count == 2 else { continue }
            let (first, second) = (semicolons[0], semicolons[1])
            // A short count to a constant (`for (int k = -4; k <= 4; k++)`) ends soon by
            // itself, and is left as it is: the device's compiler unrolls it. A long one
            // (60,000 turns of a heavy body) is a runaway like any other.
            if isCounted(open: open, first: first, second: second, close: close) { continue }
            if let inside = next(first + 1), inside < second {
                tokens[first].text = "; ("
                tokens[second].text = ") && \(call);"
            } else {
                tokens[first].text = "; \(call)"
            }
        }
    }

    /// The words and punctuation of tokens `range`, spaces and comments left out.
    private func solid(_ range: Range<Int>) -> [Token] {
        range.compactMap { isBlank($0) ? nil : tokens[$0] }
    }

    /// The most turns of a count to a constant left unguarded.
    static let shortCount = 256.0

    /// Whether the `for` whose parts are between `open`, the two semicolons and `close`
    /// counts a variable from a number to a number, one way, in at most ``shortCount``
    /// turns, and its body never writes it.
    private func isCounted(open: Int, first: Int, second: Int, close: Int) -> Bool {
        func isNumber(_ t: [Token]) -> Bool {
            (t.count == 1 && t[0].kind == .number) || (t.count == 2 && t[0].isPunctuation("-") && t[1].kind == .number)
        }
        // int k = -4
        var start = solid((open + 1)..<first)
        if let type = start.first, type.isWord("int") || type.isWord("uint") { start.removeFirst() }
        guard start.count >= 3, start[0].kind == .word, start[1].isPunctuation("="), isNumber(Array(start[2...])) else { return false }
        let name = start[0].text
        // k <= 4
        let test = solid((first + 1)..<second)
        guard test.count >= 3, test[0].isWord(name), isNumber(Array(test[2...])) else { return false }
        let rising: Bool
        switch test[1].text {
        case "<", "<=": rising = true
        case ">", ">=": rising = false
        default: return false
        }
        // k++, ++k, k += 2 (and down for a count down)
        let step = solid((second + 1)..<close)
        let up = step.map(\.text) == [name, "++"] || step.map(\.text) == ["++", name]
            || (step.count == 3 && step[0].isWord(name) && step[1].isPunctuation("+=") && step[2].kind == .number)
        let down = step.map(\.text) == [name, "--"] || step.map(\.text) == ["--", name]
            || (step.count == 3 && step[0].isWord(name) && step[1].isPunctuation("-=") && step[2].kind == .number)
        guard rising ? up : down else { return false }
        let stride = step.count == 3 ? Double(step[2].text.filter { $0.isNumber || $0 == "." }) ?? 0 : 1
        guard stride > 0 else { return false }
        func value(_ t: [Token]) -> Double? {
            // Decimal only (`0x100`, `1e3` are not read: such a loop is guarded).
            guard let text = t.last?.text, text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "u" || $0 == "U" }),
                  let v = Double(text.filter { $0.isNumber || $0 == "." }) else { return nil }
            return t.count == 2 ? -v : v
        }
        guard let from = value(Array(start[2...])), let to = value(Array(test[2...])), abs(to - from) / stride <= Self.shortCount else { return false }
        // The body: a block, or one statement.
        guard let body = next(close + 1) else { return false }
        var end = body
        if tokens[body].isPunctuation("{") {
            guard let closing = closing(body) else { return false }
            end = closing
        } else {
            var depth = 0
            while end < tokens.count {
                let t = tokens[end]
                if t.kind == .punctuation {
                    if ["(", "[", "{"].contains(t.text) { depth += 1 } else if [")", "]", "}"].contains(t.text) { depth -= 1 }
                    if t.text == ";" && depth == 0 { break }
                }
                end += 1
            }
        }
        let writes: Set<String> = ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"]
        let inside = solid(body..<min(end + 1, tokens.count))
        for (j, t) in inside.enumerated() where t.isWord(name) {
            if j + 1 < inside.count, inside[j + 1].kind == .punctuation, writes.contains(inside[j + 1].text) { return false }
            if j > 0, inside[j - 1].isPunctuation("++") || inside[j - 1].isPunctuation("--") { return false }
        }
        return true
    }
}
