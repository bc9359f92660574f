import Foundation

/// SwiftUI's Metal form, read as it is written: a `.metal` file of `[[stitchable]]`
/// functions becomes GLSL of the same lines (no tool reads Metal into SPIR-V, so the
/// subset published SwiftUI shaders use is translated word by word here). The kind comes
/// from the signature; the frame's size, the time and the bounds are bound by name and
/// type; every other argument is a parameter (docs/shaders.md, "Metal").
enum MetalShader {
    /// Metal's types as GLSL's (`half` computed as `float`).
    static let types: [String: String] = {
        var t: [String: String] = ["half": "float", "short": "int", "ushort": "uint", "char": "int", "uchar": "uint", "size_t": "uint"]
        for n in 2...4 {
            for (metal, glsl) in [("float", "vec"), ("half", "vec"), ("int", "ivec"), ("short", "ivec"), ("uint", "uvec"), ("ushort", "uvec"),
                                  ("bool", "bvec"), ("packed_float", "vec"), ("packed_half", "vec")] {
                t["\(metal)\(n)"] = "\(glsl)\(n)"
            }
            for m in 2...4 {
                t["float\(n)x\(m)"] = n == m ? "mat\(n)" : "mat\(n)x\(m)"
                t["half\(n)x\(m)"] = n == m ? "mat\(n)" : "mat\(n)x\(m)"
            }
        }
        return t
    }()

    /// The scalar and vector types a parameter may have, as parameter kinds.
    static let parameterKinds: [String: ShaderSource.Parameter.Kind] = [
        "float": .float, "half": .float, "int": .int, "uint": .int, "short": .int, "ushort": .int, "bool": .bool,
        "float2": .vec2, "half2": .vec2, "float3": .vec3, "half3": .vec3, "float4": .vec4, "half4": .vec4,
    ]

    /// Metal's functions whose GLSL name or meaning differs (the prelude defines the `vfx_`
    /// ones with Metal's meaning: `fmod` truncates, `round` goes away from zero).
    static let functions: [String: String] = [
        "fmod": "vfx_fmod", "atan2": "atan", "rsqrt": "inversesqrt", "saturate": "vfx_saturate", "min3": "vfx_min3", "max3": "vfx_max3",
        "median3": "vfx_median3", "fmin": "min", "fmax": "max", "fabs": "abs", "powr": "pow", "round": "vfx_round", "rint": "roundEven",
        "log10": "vfx_log10", "exp10": "vfx_exp10", "select": "vfx_select", "copysign": "vfx_copysign", "sinpi": "vfx_sinpi",
        "cospi": "vfx_cospi", "tanpi": "vfx_tanpi", "length_squared": "vfx_length_squared", "distance_squared": "vfx_distance_squared",
        "fmin3": "vfx_min3", "fmax3": "vfx_max3", "divide": "vfx_divide",
    ]

    /// Metal's constants (`M_PI_F` and the `_H` halves, the limits).
    static let constants: [String: String] = {
        var c: [String: String] = [:]
        let values: [(String, Double)] = [("E", M_E), ("LOG2E", M_LOG2E), ("LOG10E", M_LOG10E), ("LN2", M_LN2), ("LN10", M_LN10),
                                          ("PI", Double.pi), ("PI_2", Double.pi / 2), ("PI_4", Double.pi / 4), ("1_PI", 1 / Double.pi),
                                          ("2_PI", 2 / Double.pi), ("2_SQRTPI", 2 / Double.pi.squareRoot()), ("SQRT2", 2.0.squareRoot()),
                                          ("SQRT1_2", 0.5.squareRoot())]
        for (name, value) in values {
            let text = String(format: "%.9g", value) + (String(format: "%.9g", value).contains(".") ? "" : ".0")
            c["M_\(name)_F"] = text
            c["M_\(name)_H"] = text
        }
        c["MAXFLOAT"] = "3.402823466e38"
        c["FLT_MAX"] = "3.402823466e38"
        c["HUGE_VALF"] = "(1.0 / 0.0)"
        c["INFINITY"] = "(1.0 / 0.0)"
        c["FLT_MIN"] = "1.175494351e-38"
        c["FLT_EPSILON"] = "1.192092896e-07"
        c["HALF_MAX"] = "65504.0"
        c["HALF_MIN"] = "6.103515625e-05"
        c["HALF_EPSILON"] = "0.0009765625"
        return c
    }()

    /// Words outside the subset, and what they are: each one a line naming the file and line.
    static let refused: [String: String] = {
        var r: [String: String] = [:]
        for w in ["device", "threadgroup", "threadgroup_imageblock", "ray_data", "object_data"] { r[w] = "an address space" }
        for w in ["template", "typename", "class", "operator", "auto", "decltype", "static_assert", "nullptr", "this", "new", "delete",
                  "virtual", "friend", "mutable", "explicit", "public", "private", "protected", "namespace", "typedef", "enum", "union",
                  "goto", "extern", "long", "double", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "as_type", "sizeof"] { r[w] = "C++ beyond the subset" }
        for w in ["texture1d", "texture2d", "texture3d", "texturecube", "texture2d_array", "depth2d", "sampler"] {
            r[w] = "an image argument is read in the [[stitchable]] function itself (texture2d<half> NAME), not passed to a helper"
        }
        for w in ["discard_fragment", "kernel", "vertex", "fragment", "sincos", "modf", "frexp"] { r[w] = "not in a SwiftUI shader's subset" }
        return r
    }()

    /// Words GLSL reserves that Metal does not: a user's name spelt so is renamed.
    static let glslReserved: Set<String> = [
        "attribute", "varying", "buffer", "shared", "coherent", "restrict", "readonly", "writeonly", "resource", "atomic_uint", "layout",
        "centroid", "flat", "smooth", "noperspective", "patch", "sample", "subroutine", "in", "out", "inout", "uniform", "invariant",
        "precise", "discard", "lowp", "mediump", "highp", "precision", "common", "partition", "active", "asm", "noinline", "external",
        "interface", "fixed", "unsigned", "superp", "input", "output", "cast", "using", "filter", "image1D", "image2D", "image3D", "sampler1D",
        "sampler2D", "sampler3D", "samplerCube", "texture", "isampler2D", "usampler2D", "dvec2", "dvec3", "dvec4", "dmat2", "dmat3",
        "dmat4", "hvec2", "hvec3", "hvec4", "fvec2", "fvec3", "fvec4", "vec2", "vec3", "vec4", "ivec2", "ivec3", "ivec4", "uvec2",
        "uvec3", "uvec4", "bvec2", "bvec3", "bvec4", "mat2", "mat3", "mat4", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4",
        "mat4x2", "mat4x3", "mat4x4", "mod", "inversesqrt", "roundEven", "lessThan", "greaterThan", "equal", "notEqual",
        // vidfx's own names in the program.
        "size", "time", "frame", "source", "main", "effect", "position", "cell",
    ]

    /// The helpers the translation calls, with Metal's meaning, for each float type.
    static let before: String = {
        var lines: [String] = []
        for t in ["float", "vec2", "vec3", "vec4"] {
            lines.append("\(t) vfx_fmod(\(t) x, \(t) y) { return x - y * trunc(x / y); }")
            if t != "float" { lines.append("\(t) vfx_fmod(\(t) x, float y) { return x - y * trunc(x / y); }") }
            lines.append("\(t) vfx_saturate(\(t) x) { return clamp(x, 0.0, 1.0); }")
            lines.append("\(t) vfx_min3(\(t) a, \(t) b, \(t) c) { return min(min(a, b), c); }")
            lines.append("\(t) vfx_max3(\(t) a, \(t) b, \(t) c) { return max(max(a, b), c); }")
            lines.append("\(t) vfx_median3(\(t) a, \(t) b, \(t) c) { return max(min(a, b), min(max(a, b), c)); }")
            lines.append("\(t) vfx_round(\(t) x) { return sign(x) * floor(abs(x) + 0.5); }")
            lines.append("\(t) vfx_log10(\(t) x) { return log(x) * 0.4342944819; }")
            lines.append("\(t) vfx_exp10(\(t) x) { return exp(x * 2.302585093); }")
            lines.append("\(t) vfx_copysign(\(t) x, \(t) y) { return mix(abs(x), -abs(x), \(t)(lessThanZero(y))); }")
            lines.append("\(t) vfx_sinpi(\(t) x) { return sin(x * 3.14159265358979); }")
            lines.append("\(t) vfx_cospi(\(t) x) { return cos(x * 3.14159265358979); }")
            lines.append("\(t) vfx_tanpi(\(t) x) { return tan(x * 3.14159265358979); }")
            lines.append("float vfx_length_squared(\(t) x) { return dot(x, x); }")
            lines.append("float vfx_distance_squared(\(t) x, \(t) y) { return dot(x - y, x - y); }")
            lines.append("\(t) vfx_divide(\(t) x, \(t) y) { return x / y; }")
            lines.append("\(t) vfx_select(\(t) a, \(t) b, bool c) { return c ? b : a; }")
            if t != "float" {
                let b = "b" + t
                lines.append("\(t) vfx_select(\(t) a, \(t) b, \(b) c) { return mix(a, b, c); }")
            }
        }
        for t in ["int", "ivec2", "ivec3", "ivec4", "uint", "uvec2", "uvec3", "uvec4"] {
            lines.append("\(t) vfx_min3(\(t) a, \(t) b, \(t) c) { return min(min(a, b), c); }")
            lines.append("\(t) vfx_max3(\(t) a, \(t) b, \(t) c) { return max(max(a, b), c); }")
            lines.append("\(t) vfx_select(\(t) a, \(t) b, bool c) { return c ? b : a; }")
        }
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "float(lessThanZero(y))", with: "float(y < 0.0)")
            .replacingOccurrences(of: "vec2(lessThanZero(y))", with: "vec2(lessThan(y, vec2(0.0)))")
            .replacingOccurrences(of: "vec3(lessThanZero(y))", with: "vec3(lessThan(y, vec3(0.0)))")
            .replacingOccurrences(of: "vec4(lessThanZero(y))", with: "vec4(lessThan(y, vec4(0.0)))")
    }()

    /// The arguments bound to what vidfx knows, by name and Metal type.
    static let bound: [String: (type: Set<String>, glsl: String, value: String)] = [
        "size": (["float2", "half2"], "vec2", "size"), "layerSize": (["float2", "half2"], "vec2", "size"),
        "viewSize": (["float2", "half2"], "vec2", "size"), "time": (["float", "half"], "float", "time"),
        "boundingRect": (["float4", "half4"], "vec4", "vec4(0.0, 0.0, size)"), "bounds": (["float4", "half4"], "vec4", "vec4(0.0, 0.0, size)"),
    ]

    /// The GLSL name of a user's name.
    static func glslName(_ name: String) -> String {
        if glslReserved.contains(name) || name.hasPrefix("vfx_") || name.hasPrefix("gl_") || name.contains("__") { return "vfx_u_" + name }
        return name
    }

    typealias Token = ShaderTokens.Token

    static func parts(_ text: String, file: String, function chosen: String?) throws(ShaderError) -> ShaderSource.Parts {
        var tokens = try withoutPreamble(ShaderTokens(text), file: file)
        try castsAsConstructors(&tokens, file: file)
        // The [[stitchable]] functions: where each begins (its return type) and its name.
        let stitchable = tokens.tokens.indices.filter { tokens.tokens[$0].kind == .verbatim && tokens.tokens[$0].text.hasPrefix("[[stitchable]]") }
        var entries: [(start: Int, name: String)] = []
        for s in stitchable {
            guard let type = tokens.next(s + 1), let name = tokens.next(type + 1), tokens.tokens[name].kind == .word else {
                throw ShaderError("\(file):\(tokens.tokens[s].line): [[stitchable]] is not followed by a function")
            }
            entries.append((type, tokens.tokens[name].text))
        }
        guard !entries.isEmpty else {
            throw ShaderError("\(file): no [[stitchable]] function (SwiftUI calls a shader's [[stitchable]] function)")
        }
        let entry: (start: Int, name: String)
        if let chosen {
            guard let found = entries.first(where: { $0.name == chosen }) else {
                throw ShaderError("\(file)#\(chosen): no such [[stitchable]] function; the file has \(entries.map(\.name).joined(separator: ", "))")
            }
            entry = found
        } else {
            guard entries.count == 1 else {
                throw ShaderError("\(file): \(entries.count) [[stitchable]] functions; choose one: \(entries.map { "\(file)#\($0.name)" }.joined(separator: ", "))")
            }
            entry = entries[0]
        }
        for s in stitchable { tokens.tokens[s].text = String(repeating: "\n", count: tokens.tokens[s].newlines) }
        // The other stitchable functions are left out: their signatures (a layer, defaults,
        // images) are SwiftUI's, not plain functions'.
        for other in entries.reversed() where other.start != entry.start {
            if let open = tokens.tokens[other.start...].firstIndex(where: { $0.isPunctuation("(") }),
               let close = tokens.closing(open), let body = tokens.next(close + 1), tokens.tokens[body].isPunctuation("{"),
               let end = tokens.closing(body) {
                tokens.blank(other.start...end)
            }
        }
        let signature = try self.signature(&tokens, at: entry.start, name: entry.name, file: file)
        try translate(&tokens, file: file)
        return ShaderSource.Parts(kind: signature.kind, parameters: signature.parameters, body: tokens.text, before: before,
                                  call: signature.call, functions: entries.map(\.name))
    }

    /// Blanks what Metal needs and GLSL does not (its includes, `using namespace metal;`,
    /// attributes, `metal::`), keeps `[[stitchable]]` as a mark, and names the layer type.
    static func withoutPreamble(_ input: ShaderTokens, file: String) throws(ShaderError) -> ShaderTokens {
        var tokens = input
        var i = 0
        func blank(_ range: ClosedRange<Int>) { tokens.blank(range) }
        while i < tokens.tokens.count {
            let t = tokens.tokens[i]
            if t.isPunctuation("#") {
                // A directive: to the end of its line.
                var end = i
                while end + 1 < tokens.tokens.count, !(tokens.tokens[end + 1].kind == .space && tokens.tokens[end + 1].newlines > 0) { end += 1 }
                let words = tokens.tokens[i...end].filter { $0.kind != .space && $0.kind != .comment }.map(\.text)
                let directive = words.count > 1 ? words[1] : ""
                if directive == "include" {
                    let target = words.dropFirst(2).joined()
                    guard ["<metal_stdlib>", "<SwiftUI/SwiftUI.h>", "<metal_math>", "<simd/simd.h>", "<metal_common>"].contains(target) else {
                        throw ShaderError("\(file):\(t.line): #include \(target) is not read (a shader is one file; <metal_stdlib> and <SwiftUI/SwiftUI.h> are given)")
                    }
                    blank(i...end)
                } else if directive == "pragma" {
                    blank(i...end)
                }
                i += 1
            } else if t.isWord("using") {
                guard let n = tokens.next(i + 1), tokens.tokens[n].isWord("namespace"), let m = tokens.next(n + 1),
                      let semicolon = tokens.next(m + 1), tokens.tokens[semicolon].isPunctuation(";"),
                      ["metal", "SwiftUI"].contains(tokens.tokens[m].text) else {
                    throw ShaderError("\(file):\(t.line): 'using' beyond 'using namespace metal;' is not in vidfx's Metal subset")
                }
                blank(i...semicolon)
                i += 1
            } else if t.isPunctuation("[[") {
                guard let close = tokens.closing(i) else { throw ShaderError("\(file):\(t.line): [[ is not closed") }
                let inside = tokens.tokens[(i + 1)..<close].filter { $0.kind == .word }.map(\.text)
                if inside.contains("stitchable") {
                    tokens.blank(i...close)
                    tokens.tokens[i] = Token(kind: .verbatim, text: "[[stitchable]]", line: t.line)
                } else {
                    blank(i...close)
                }
                i += 1
            } else if t.isWord("sampler"), let before = tokens.previous(i), tokens.tokens[before].isWord("constexpr") || tokens.tokens[before].isWord("constant") {
                // `constexpr sampler s(filter::linear, …);`: vidfx's images are read clamped
                // and bilinear, whatever the sampler says.
                guard let end = tokens.tokens[i...].firstIndex(where: { $0.isPunctuation(";") }) else {
                    throw ShaderError("\(file):\(t.line): the sampler's declaration has no ';'")
                }
                blank(before...end)
                i = end + 1
            } else if t.isPunctuation("::") {
                guard let before = tokens.previous(i), let after = tokens.next(i + 1) else {
                    throw ShaderError("\(file):\(t.line): '::' is not in vidfx's Metal subset")
                }
                let namespace = tokens.tokens[before].text
                if namespace == "SwiftUI" && tokens.tokens[after].text == "Layer" {
                    tokens.blank(before...after)
                    tokens.tokens[before] = Token(kind: .word, text: "vfx_Layer", line: tokens.tokens[before].line)
                    i = after + 1
                } else if ["metal", "precise", "fast", "access"].contains(namespace) {
                    blank(before...i)
                    i += 1
                } else {
                    throw ShaderError("\(file):\(t.line): '\(namespace)::' is not in vidfx's Metal subset")
                }
            } else {
                i += 1
            }
        }
        return tokens
    }

    static let scalarTypes: Set<String> = ["float", "half", "int", "uint", "short", "ushort", "bool", "char", "uchar"]

    /// Metal's C casts, `(float)x`, as GLSL's constructors, `float(x)`: the cast takes the
    /// operand that follows (a name, a number or a bracket, with its calls, members and
    /// indices).
    static func castsAsConstructors(_ tokens: inout ShaderTokens, file: String) throws(ShaderError) {
        var i = tokens.tokens.count - 1
        while i >= 0 {
            defer { i -= 1 }
            guard tokens.tokens[i].isPunctuation("("), let type = tokens.next(i + 1),
                  tokens.tokens[type].kind == .word, scalarTypes.contains(tokens.tokens[type].text) || types[tokens.tokens[type].text] != nil,
                  let close = tokens.next(type + 1), tokens.tokens[close].isPunctuation(")") else { continue }
            if let before = tokens.previous(i), tokens.tokens[before].kind == .word || tokens.tokens[before].isPunctuation(")")
                || tokens.tokens[before].isPunctuation("]") { continue }
            guard var j = tokens.next(close + 1) else { continue }
            while tokens.tokens[j].isPunctuation("-") || tokens.tokens[j].isPunctuation("+") || tokens.tokens[j].isPunctuation("!") {
                guard let n = tokens.next(j + 1) else { break }
                j = n
            }
            let t = tokens.tokens[j]
            var end: Int
            if t.kind == .word || t.kind == .number { end = j } else if t.isPunctuation("("), let c = tokens.closing(j) { end = c } else {
                throw ShaderError("\(file):\(tokens.tokens[i].line): a cast vidfx cannot read; write \(tokens.tokens[type].text)(x)")
            }
            // Postfix: calls, members, indices.
            while let n = tokens.next(end + 1) {
                if tokens.tokens[n].isPunctuation("("), let c = tokens.closing(n) { end = c }
                else if tokens.tokens[n].isPunctuation("["), let c = tokens.closing(n) { end = c }
                else if tokens.tokens[n].isPunctuation("."), let m = tokens.next(n + 1), tokens.tokens[m].kind == .word { end = m }
                else { break }
            }
            tokens.tokens.insert(Token(kind: .punctuation, text: ")", line: tokens.tokens[end].line), at: end + 1)
            tokens.tokens[close].text = "("
            tokens.tokens[i].text = ""
            tokens.tokens[i].kind = .space
        }
    }

    /// The entry's signature: its kind, its parameters, and the GLSL function that takes
    /// its place, with the bound arguments and parameters made locals of its body.
    static func signature(_ tokens: inout ShaderTokens, at start: Int, name: String, file: String) throws(ShaderError)
        -> (kind: ShaderSource.Kind, parameters: [ShaderSource.Parameter], call: String) {
        let line = tokens.tokens[start].line
        let returns = tokens.tokens[start].text
        guard let nameIndex = tokens.next(start + 1), let open = tokens.next(nameIndex + 1), tokens.tokens[open].isPunctuation("("),
              let close = tokens.closing(open), let brace = tokens.next(close + 1), tokens.tokens[brace].isPunctuation("{"),
              let end = tokens.closing(brace) else {
            throw ShaderError("\(file):\(line): '\(name)' is not a function with a body")
        }
        // The arguments: their tokens between top-level commas, and a comment on their line.
        var arguments: [(words: [Token], comment: String)] = []
        var current: [Token] = []
        var comment = "", depth = 0
        for t in tokens.tokens[(open + 1)..<close] {
            if t.kind == .comment {
                let text = t.text.hasPrefix("//") ? String(t.text.dropFirst(2)) : String(t.text.dropFirst(2).dropLast(2))
                if current.isEmpty, !arguments.isEmpty, arguments[arguments.count - 1].comment.isEmpty { arguments[arguments.count - 1].comment = text }
                else { comment = text }
                continue
            }
            if t.kind == .space || t.kind == .verbatim { continue }
            if t.isPunctuation("(") { depth += 1 } else if t.isPunctuation(")") { depth -= 1 }
            if t.isPunctuation(","), depth == 0 {
                arguments.append((current, comment))
                current = []
                comment = ""
            } else {
                current.append(t)
            }
        }
        if !current.isEmpty { arguments.append((current, comment)) }
        let shapes = "colour is 'half4 f(float2 position, half4 color, …)', layer 'half4 f(float2 position, SwiftUI::Layer layer, …)', "
            + "distortion 'float2 f(float2 position, …)'"
        func argument(_ words: [Token]) throws(ShaderError) -> (type: String, name: String, value: [Token]) {
            var words = words.filter { !$0.isWord("const") && !$0.isWord("thread") && !$0.isWord("constant") }
            if let t = words.first(where: { $0.isPunctuation("&") || $0.isPunctuation("*") }) {
                throw ShaderError("\(file):\(t.line): '\(name)': an argument by reference or pointer is not in vidfx's Metal subset")
            }
            // An image: `texture2d<half> key` (its `[[texture(n)]]` already blanked).
            if words.count >= 5, words[0].isWord("texture2d"), words[1].isPunctuation("<"), words[3].isPunctuation(">"), words[4].kind == .word {
                guard words.count == 5 else { throw ShaderError("\(file):\(words[5].line): '\(name)': an image argument has no default") }
                return ("texture2d", words[4].text, [])
            }
            if let first = words.first, let r = refused[first.text] { throw ShaderError("\(file):\(first.line): '\(first.text)': \(r)") }
            guard words.count >= 2, words[0].kind == .word, words[1].kind == .word else {
                throw ShaderError("\(file):\(words.first?.line ?? line): '\(name)': an argument is 'TYPE NAME' or 'TYPE NAME = VALUE'")
            }
            let value: [Token]
            if words.count > 2 {
                guard words[2].isPunctuation("=") else {
                    throw ShaderError("\(file):\(words[2].line): '\(name)': '\(words[2].text)' after argument '\(words[1].text)'")
                }
                value = Array(words[3...])
            } else { value = [] }
            words = Array(words.prefix(2))
            return (words[0].text, words[1].text, value)
        }
        let parsed = try arguments.map { (a: (words: [Token], comment: String)) throws(ShaderError) in try argument(a.words) }
        guard parsed.count >= 1, ["float2", "half2"].contains(parsed[0].type) else {
            throw ShaderError("\(file):\(line): '\(name)' does not take the position (float2) first: \(shapes)")
        }
        let kind: ShaderSource.Kind
        var taken = 1
        if ["half4", "float4"].contains(returns), parsed.count > 1, parsed[1].type == "vfx_Layer" {
            kind = .layer
            taken = 2
        } else if ["half4", "float4"].contains(returns), parsed.count > 1, ["half4", "float4"].contains(parsed[1].type), bound[parsed[1].name] == nil {
            kind = .color
            taken = 2
        } else if ["float2", "half2"].contains(returns) {
            kind = .distortion
        } else {
            throw ShaderError("\(file):\(line): '\(name)' is not a SwiftUI shader: \(shapes)")
        }
        var parameters: [ShaderSource.Parameter] = []
        var locals: [String] = []
        // Images, in order: the k-th is vfx_image_k, its size `vfx_idesc_k.xy`.
        let images = parsed.dropFirst(taken).filter { $0.type == "texture2d" }.map(\.name)
        for (k, a) in parsed.enumerated().dropFirst(taken) {
            if a.type == "vfx_Layer" { throw ShaderError("\(file):\(line): '\(name)': the layer is the second argument") }
            let local = glslName(a.name)
            let glslType = types[a.type] ?? a.type
            if a.type == "texture2d" {
                var p = ShaderSource.Parameter(name: a.name, kind: .sampler2D, defaultValue: [0, 0, 0, 0], range: nil, help: "",
                                               isColor: false, offset: 0, isRequired: true)
                try ShaderSource.describe(&p, comment: arguments[k].comment, file: file, line: line)
                parameters.append(p)
                continue
            }
            if let b = bound[a.name], b.type.contains(a.type) {
                locals.append("\(b.glsl) \(local) = \(b.value);")
                continue
            }
            // `keySize` beside `keyTexture` (or `key`): that image's size.
            if ["float2", "half2"].contains(a.type), a.name.hasSuffix("Size"),
               let image = images.firstIndex(where: { $0 == String(a.name.dropLast(4)) || $0 == a.name.dropLast(4) + "Texture" }) {
                locals.append("vec2 \(local) = vec2(vfx_idesc_\(image).xy);")
                continue
            }
            guard let pkind = parameterKinds[a.type] else {
                throw ShaderError("\(file):\(line): '\(name)': argument '\(a.name)' is a \(a.type); a parameter is a float, int, bool or a 2-4 component float vector")
            }
            guard ShaderSource.isName(a.name), !parameters.contains(where: { $0.name == a.name }) else {
                throw ShaderError("\(file):\(line): '\(name)': argument '\(a.name)' cannot name a parameter")
            }
            var p = ShaderSource.Parameter(name: a.name, kind: pkind, defaultValue: Array(repeating: 0, count: pkind.components), range: nil,
                                           help: "", isColor: false, offset: 0, isRequired: a.value.isEmpty)
            if !a.value.isEmpty {
                guard let v = constant(a.value, kind: pkind) else {
                    throw ShaderError("\(file):\(a.value[0].line): '\(name)': the default of '\(a.name)' must be a number or a vector of numbers")
                }
                p.defaultValue = v
            }
            try ShaderSource.describe(&p, comment: arguments[k].comment, file: file, line: line)
            p.member = "vfx_p_" + a.name
            let read = pkind == .bool ? "\(p.member)" : "\(glslType)(\(p.member))"
            locals.append("\(glslType) \(local) = \(read);")
            parameters.append(p)
        }
        // Images are read through their functions, in the function itself.
        var j = brace
        while j < end {
            if tokens.tokens[j].kind == .word, let k = images.firstIndex(of: tokens.tokens[j].text) {
                let image = tokens.tokens[j].text
                guard let dot = tokens.next(j + 1), tokens.tokens[dot].isPunctuation("."), let method = tokens.next(dot + 1),
                      let paren = tokens.next(method + 1), tokens.tokens[paren].isPunctuation("("), let closing = tokens.closing(paren) else {
                    throw ShaderError("\(file):\(tokens.tokens[j].line): '\(image)' is read with \(image).sample(s, uv) or .read(p) (it cannot be passed on)")
                }
                switch tokens.tokens[method].text {
                case "sample":
                    // The sampler, the first argument, is dropped.
                    guard let comma = tokens.tokens[paren..<closing].firstIndex(where: { $0.isPunctuation(",") }) else {
                        throw ShaderError("\(file):\(tokens.tokens[j].line): \(image).sample takes a sampler and a point")
                    }
                    tokens.blank(j...comma)
                    tokens.tokens[j] = Token(kind: .verbatim, text: "vfx_image_\(k)(", line: tokens.tokens[j].line)
                case "read":
                    tokens.blank(j...method)
                    tokens.tokens[j] = Token(kind: .verbatim, text: "vfx_image_\(k)_fetch", line: tokens.tokens[j].line)
                case "get_width", "get_height":
                    tokens.blank(j...closing)
                    tokens.tokens[j] = Token(kind: .verbatim, text: "uint(vfx_idesc_\(k).\(tokens.tokens[method].text == "get_width" ? "x" : "y"))",
                                             line: tokens.tokens[j].line)
                default:
                    throw ShaderError("\(file):\(tokens.tokens[j].line): \(image).\(tokens.tokens[method].text) is not read (sample, read, get_width, get_height are)")
                }
            }
            j += 1
        }
        // The layer is read through `source`, in the function itself.
        let layer = kind == .layer ? parsed[1].name : nil
        if let layer {
            var i = brace
            while i < end {
                if tokens.tokens[i].isWord(layer) {
                    guard let dot = tokens.next(i + 1), tokens.tokens[dot].isPunctuation("."), let s = tokens.next(dot + 1),
                          tokens.tokens[s].isWord("sample"), let paren = tokens.next(s + 1), tokens.tokens[paren].isPunctuation("(") else {
                        throw ShaderError("\(file):\(tokens.tokens[i].line): '\(layer)' is read with \(layer).sample(p) (it cannot be passed on)")
                    }
                    tokens.blank(i...s)
                    tokens.tokens[i].text = "source" + tokens.tokens[i].text
                }
                i += 1
            }
        }
        let position = glslName(parsed[0].name)
        let head: String
        switch kind {
        case .color: head = "vec4 vfx_entry(vec2 \(position), vec4 \(glslName(parsed[1].name)))"
        case .layer: head = "vec4 vfx_entry(vec2 \(position))"
        case .distortion: head = "vec2 vfx_entry(vec2 \(position))"
        }
        tokens.tokens[brace] = Token(kind: .verbatim, text: "{ " + locals.joined(separator: " "), line: tokens.tokens[brace].line)
        tokens.replace(start...close, with: head)
        tokens.tokens[start].kind = .verbatim
        let call = switch kind {
        case .color: "vfx_entry(position, vfx_pixel(cell))"
        case .layer: "vfx_entry(position)"
        case .distortion: "source(vfx_entry(position))"
        }
        return (kind, parameters, call)
    }

    /// A default written as a number (`0.2`, `-1h`) or a vector of numbers (`float2(0.5, 0.5)`).
    static func constant(_ words: [Token], kind: ShaderSource.Parameter.Kind) -> [Double]? {
        let words = words.filter { $0.kind != .space && $0.kind != .comment }
        func number(_ tokens: ArraySlice<Token>) -> Double? {
            var sign = 1.0, rest = tokens
            if rest.first?.isPunctuation("-") == true { sign = -1; rest = rest.dropFirst() }
            if rest.first?.isPunctuation("+") == true { rest = rest.dropFirst() }
            guard rest.count == 1, let t = rest.first else { return nil }
            if t.isWord("true") { return 1 }
            if t.isWord("false") { return 0 }
            guard t.kind == .number, let v = Double(literal(t.text).replacingOccurrences(of: "u", with: "")), v.isFinite, abs(v) < 1e9 else { return nil }
            return sign * v
        }
        if kind.components == 1 { return number(words[...]).map { [$0] } }
        guard words.count >= 3, words[0].kind == .word, words[1].isPunctuation("("), words.last?.isPunctuation(")") == true else {
            return number(words[...]).map { Array(repeating: $0, count: kind.components) }
        }
        var values: [Double] = []
        var piece: ArraySlice<Token> = []
        for t in words[2..<(words.count - 1)] {
            if t.isPunctuation(",") {
                guard let v = number(piece) else { return nil }
                values.append(v)
                piece = []
            } else { piece.append(t) }
        }
        guard let v = number(piece) else { return nil }
        values.append(v)
        if values.count == 1 { values = Array(repeating: values[0], count: kind.components) }
        return values.count == kind.components ? values : nil
    }

    /// A Metal number as GLSL writes it: `0.5h`, `2.f` and `1e-3f` without their suffix
    /// (and a point where the suffix made a whole number a float).
    static func literal(_ text: String) -> String {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") { return text.filter { $0 != "l" && $0 != "L" } }
        var t = text
        var wasFloat = false
        while let last = t.last, "hHfFlL".contains(last) { wasFloat = wasFloat || "hHfF".contains(last); t.removeLast() }
        if t.hasSuffix(".") { t += "0" }
        if wasFloat, !t.contains("."), !t.lowercased().contains("e") { t += ".0" }
        return t
    }

    /// Every other word rewritten: types, functions, constants, numbers; a word outside
    /// the subset a line naming its file and line; a user's word GLSL reserves renamed.
    static func translate(_ tokens: inout ShaderTokens, file: String) throws(ShaderError) {
        for i in tokens.tokens.indices {
            let t = tokens.tokens[i]
            switch t.kind {
            case .number: tokens.tokens[i].text = literal(t.text)
            case .word:
                if let r = refused[t.text] { throw ShaderError("\(file):\(t.line): '\(t.text)': \(r) (docs/shaders.md, Metal)") }
                if t.text == "vfx_Layer" {
                    throw ShaderError("\(file):\(t.line): SwiftUI::Layer is the second argument of a layer shader, not of a helper")
                }
                if let type = types[t.text] { tokens.tokens[i].text = type; continue }
                if let c = constants[t.text] { tokens.tokens[i].text = c; continue }
                if ["inline", "static", "thread"].contains(t.text) { tokens.tokens[i].text = ""; continue }
                if t.text == "constant" || t.text == "constexpr" { tokens.tokens[i].text = "const"; continue }
                if let f = functions[t.text], let n = tokens.next(i + 1), tokens.tokens[n].isPunctuation("(") {
                    tokens.tokens[i].text = f
                    continue
                }
                tokens.tokens[i].text = glslName(t.text)
            default: break
            }
        }
    }
}
