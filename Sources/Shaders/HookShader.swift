import Foundation

/// An mpv (libplacebo) user shader of one pass: `//!HOOK MAIN` (or `RGB`) with
/// `//!BIND HOOKED`, a `vec4 hook()` reading `HOOKED_tex(HOOKED_pos)`, and `//!PARAM`
/// blocks as parameters — the file FFmpeg's `libplacebo` filter takes. Several passes,
/// `//!SAVE`, `//!TEXTURE`, `//!COMPUTE` and size changes are refused in one line.
enum HookShader {
    /// What the form gives: the hooked texture as the frame, in texture coordinates
    /// (0…1, origin top-left), and mpv's names for the built-ins.
    static let before = """
        vec2 vfx_hooked_pos;
        #define HOOKED_pos vfx_hooked_pos
        #define HOOKED_size size
        #define HOOKED_pt (1.0 / size)
        #define HOOKED_mul 1.0
        #define HOOKED_off vec2(0.0)
        #define HOOKED_rot mat2(1.0, 0.0, 0.0, 1.0)
        #define input_size size
        #define target_size size
        #define tex_offset vec2(0.0)
        #define random vfx_random
        vec4 HOOKED_tex(vec2 p) { return source(p * size); }
        vec4 HOOKED_texOff(vec2 o) { return source(vfx_hooked_pos * size + o); }
        """

    /// The hook names vidfx runs a pass on: the frame as it has it (RGB).
    static let hooks: Set<String> = ["MAIN", "RGB", "MAINPRESUB", "NATIVE", "OUTPUT"]

    static func parts(_ lines: [String], file: String) throws(ShaderError) -> ShaderSource.Parts {
        var lines = lines
        var parameters: [ShaderSource.Parameter] = []
        var passes = 0
        var i = 0
        while i < lines.count {
            guard lines[i].hasPrefix("//!") else { i += 1; continue }
            // A block: its `//!` lines, then its body up to the next `//!` line.
            let start = i
            var headers: [(word: String, rest: String, line: Int)] = []
            while i < lines.count, lines[i].hasPrefix("//!") {
                let text = lines[i].dropFirst(3).trimmingCharacters(in: .whitespaces)
                let word = String(text.prefix { !$0.isWhitespace })
                headers.append((word.uppercased(), text.dropFirst(word.count).trimmingCharacters(in: .whitespaces), i + 1))
                lines[i] = ""
                i += 1
            }
            let bodyStart = i
            while i < lines.count, !lines[i].hasPrefix("//!") { i += 1 }
            let first = headers[0]
            switch first.word {
            case "PARAM":
                parameters.append(try parameter(headers, value: lines[bodyStart..<i].joined(separator: "\n"), file: file))
                for j in bodyStart..<i { lines[j] = "" }
            case "HOOK", "DESC", "BIND", "COMPONENTS", "WHEN", "SAVE", "WIDTH", "HEIGHT", "OFFSET", "COMPUTE":
                guard headers.contains(where: { $0.word == "HOOK" }) else {
                    throw ShaderError("\(file):\(first.line): a pass begins with //!HOOK")
                }
                passes += 1
                guard passes == 1 else {
                    throw ShaderError("\(file):\(start + 1): a second pass: vidfx runs hooks of one pass for now")
                }
                for h in headers {
                    switch h.word {
                    case "HOOK":
                        guard hooks.contains(h.rest.uppercased()) else {
                            throw ShaderError("\(file):\(h.line): //!HOOK \(h.rest): vidfx hooks the frame (MAIN or RGB)")
                        }
                    case "BIND":
                        guard h.rest == "HOOKED" || hooks.contains(h.rest.uppercased()) else {
                            throw ShaderError("\(file):\(h.line): //!BIND \(h.rest): only the hooked frame (HOOKED) can be bound")
                        }
                    case "DESC", "COMPONENTS": break
                    default:
                        throw ShaderError("\(file):\(h.line): //!\(h.word) is not read yet (vidfx runs one pass on the frame as it is)")
                    }
                }
            case "TEXTURE", "BUFFER":
                throw ShaderError("\(file):\(first.line): //!\(first.word) is not read yet (vidfx runs one pass on the frame as it is)")
            default:
                throw ShaderError("\(file):\(first.line): //!\(first.word) is not a hook's header")
            }
        }
        guard passes == 1 else { throw ShaderError("\(file): no pass: a hook has a '//!HOOK MAIN' block with a 'vec4 hook()'") }
        let body = lines.joined(separator: "\n")
        guard ShaderSource.withoutComments(body).range(of: #"\bvec4\s+hook\s*\(\s*(void\s*)?\)"#, options: .regularExpression) != nil else {
            throw ShaderError("\(file): the pass has no 'vec4 hook()'")
        }
        let after = "vec4 vfx_hook(vec2 p) { vfx_hooked_pos = p / size; return hook(); }"
        return ShaderSource.Parts(kind: .layer, parameters: parameters, body: body, before: before, after: after, call: "vfx_hook(position)")
    }

    /// A `//!PARAM` block: its name, `//!DESC`, `//!TYPE [DYNAMIC|CONSTANT] float|int`,
    /// `//!MINIMUM`, `//!MAXIMUM`, and its value (the block's body).
    static func parameter(_ headers: [(word: String, rest: String, line: Int)], value: String, file: String) throws(ShaderError) -> ShaderSource.Parameter {
        let line = headers[0].line
        let name = headers[0].rest
        guard ShaderSource.isName(name), !ShaderSource.builtIns.contains(name), !name.hasPrefix("vfx_"), !name.hasPrefix("HOOKED") else {
            throw ShaderError("\(file):\(line): '\(name)' cannot name a parameter")
        }
        var kind = ShaderSource.Parameter.Kind.float
        var parameter = ShaderSource.Parameter(name: name, kind: kind, defaultValue: [0], range: nil, help: "", isColor: false, offset: 0)
        var low: Double?, high: Double?
        for h in headers.dropFirst() {
            switch h.word {
            case "DESC": parameter.help = h.rest
            case "TYPE":
                let words = h.rest.split(separator: " ").map(String.init).filter { $0 != "DYNAMIC" && $0 != "CONSTANT" }
                switch words.first {
                case "float": kind = .float
                case "int", "uint": kind = .int
                default: throw ShaderError("\(file):\(h.line): //!TYPE \(h.rest): vidfx takes float and int parameters")
                }
            case "MINIMUM", "MAXIMUM":
                guard let v = Double(h.rest), v.isFinite else { throw ShaderError("\(file):\(h.line): //!\(h.word) \(h.rest) is not a number") }
                if h.word == "MINIMUM" { low = v } else { high = v }
            default: throw ShaderError("\(file):\(h.line): //!\(h.word) is not read in a //!PARAM block")
            }
        }
        parameter.kind = kind
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let v = Double(text.hasSuffix("f") || text.hasSuffix("u") ? String(text.dropLast()) : text), v.isFinite, abs(v) < 1e9,
              kind == .float || v == v.rounded() else {
            throw ShaderError("\(file):\(line): the value of '\(name)' is not a \(kind.rawValue) ('\(text.prefix { $0 != "\n" }.prefix(40))')")
        }
        parameter.defaultValue = [v]
        if low != nil || high != nil {
            let range = (low ?? -1e6)...(high ?? 1e6)
            guard range.lowerBound <= range.upperBound, range.contains(v) else {
                throw ShaderError("\(file):\(line): the value of '\(name)' is outside its //!MINIMUM…//!MAXIMUM")
            }
            parameter.range = range
        }
        return parameter
    }
}
