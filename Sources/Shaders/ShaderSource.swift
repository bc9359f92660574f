import Foundation

/// A shader file read: its form (vidfx's GLSL, SwiftUI's Metal, Shadertoy's, an mpv
/// hook), its kind, its parameters and the compute program that runs it, with the user's
/// lines kept where they were so that the compiler's messages name them (docs/shaders.md).
public struct ShaderSource: Sendable, Equatable {
    /// What the shader's function is, as SwiftUI has them.
    public enum Kind: String, Sendable, Equatable {
        /// `vec4 effect(vec2 position, vec4 color)`: the pixel's new colour.
        case color
        /// `vec4 effect(vec2 position)`, reading the frame anywhere with `source(p)`.
        case layer
        /// `vec2 effect(vec2 position)`: where to read the frame.
        case distortion
    }

    /// How the file is written.
    public enum Form: String, Sendable, Equatable {
        /// vidfx's GLSL form: an `effect` function and `uniform` parameters.
        case glsl
        /// SwiftUI's Metal form: `[[stitchable]]` functions (`.metal`).
        case metal
        /// Shadertoy's form: `mainImage(out vec4, in vec2)` with `iChannel0` the frame.
        case shadertoy
        /// An mpv user shader of one pass (`.hook`), with `//!PARAM` parameters.
        case hook
    }

    /// One parameter of the effect (a `uniform`, a Metal argument, a `//!PARAM`).
    public struct Parameter: Sendable, Equatable {
        /// The GLSL types a parameter may have.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            case float, int, bool, vec2, vec3, vec4
            /// An image file (`uniform sampler2D key;`, Metal's `texture2d<half>`): read with
            /// `texture(key, uv)`, uv in 0…1 from the image's top-left.
            case sampler2D
            /// Components, and their std140 size and alignment in bytes (an image's are its
            /// width, height and where its pixels begin, an ivec4).
            var components: Int { switch self { case .float, .int, .bool: 1; case .vec2: 2; case .vec3: 3; case .vec4, .sampler2D: 4 } }
            var alignment: Int { switch self { case .float, .int, .bool: 4; case .vec2: 8; case .vec3, .vec4, .sampler2D: 16 } }
        }

        /// Its name in the shader and on the command line.
        public var name: String
        /// Its GLSL type.
        public var kind: Kind
        /// Its value when not given (zeros unless the file gives one).
        public var defaultValue: [Double]
        /// The range every component must be in, when the file gives one.
        public var range: ClosedRange<Double>?
        /// What it does, from the file.
        public var help: String
        /// Whether the default was written as a colour (`#ff8800`): a `vec4` or `vec3` colour.
        public var isColor: Bool
        /// Its byte offset in the uniform block.
        public var offset: Int
        /// Whether it must be given (a Metal argument without a default, an image without one).
        public var isRequired = false
        /// An image parameter's default file, relative to the shader's folder.
        public var defaultFile: String?
        /// Its name in the uniform block (the name itself, unless the form keeps it apart).
        var member: String = ""
    }

    /// The shader's name in messages (its file's name).
    public let name: String
    /// How the file is written.
    public let form: Form
    /// Its kind.
    public let kind: Kind
    /// Its parameters, in the order declared.
    public let parameters: [Parameter]
    /// The functions a file of several offers (`FILE#NAME`: a Metal file's `[[stitchable]]`
    /// functions), and the one this is; empty for the other forms.
    public let functions: [String]
    /// The compute shader that runs it: vidfx's lines, then `#line 1` and the user's.
    public let program: String
    /// The size of the uniform block in bytes (std140).
    public let uniformSize: Int
    /// Whether the program reads the frame through the device's sampler (`source` of a
    /// layer or distortion shader in the frame's own values): the run copies the frame
    /// into an image for it.
    public let readsSampledFrame: Bool
    /// Whether the shader works in linear light (`#pragma vidfx linear`): its colours,
    /// `source` and images decoded from sRGB, its result encoded again — as a built-in's
    /// `space=linear`.
    public let isLinear: Bool
    /// The file's text as given: the compiler's messages find their column in it.
    let text: String

    /// The longest shader source read, in bytes.
    public static let longestSource = 64 << 10
    /// The most parameters a shader may declare.
    public static let mostParameters = 64
    /// Where parameters begin in the uniform block: after the built-ins (vec2 size,
    /// float time, int frame, then the frame rate, its period, a random number and the date).
    static let firstParameterOffset = 48

    /// What a front end makes of a file: the user's lines rewritten (same lines), what
    /// goes before them and after them, and the call `main` makes for each pixel.
    struct Parts {
        var kind: Kind
        var parameters: [Parameter]
        var body: String
        var before = ""
        var after = ""
        var call: String
        var functions: [String] = []
    }

    /// Reads `text`, a shader in any of vidfx's forms; `name` names it in messages and
    /// chooses the form by its extension (`.metal`, `.hook`; otherwise GLSL, Shadertoy's
    /// when it has a `mainImage`). `function` chooses one of a Metal file's functions.
    /// - Throws: ``ShaderError`` naming the file, the line and the cause.
    public init(_ text: String, name: String, function: String? = nil) throws(ShaderError) {
        guard text.utf8.count <= Self.longestSource else {
            throw ShaderError("\(name): \(text.utf8.count) bytes; a shader may have up to \(Self.longestSource >> 10) KiB")
        }
        guard !text.utf8.contains(0) else { throw ShaderError("\(name): not a text file (it holds a NUL byte)") }
        try Self.refuseIncludes(text, file: name)
        self.name = name
        self.text = text
        let lower = name.lowercased()
        let (text, linear) = try Self.pragmas(text, file: name)
        isLinear = linear
        let parts: Parts
        if lower.hasSuffix(".metal") {
            form = .metal
            parts = try MetalShader.parts(text, file: name, function: function)
        } else {
            if let function { throw ShaderError("\(name)#\(function): only a Metal file holds several functions") }
            let lines = try Self.glslLines(text, file: name)
            if lower.hasSuffix(".hook") {
                form = .hook
                parts = try HookShader.parts(lines, file: name)
            } else if Self.withoutComments(lines.joined(separator: "\n")).range(of: #"\bvoid\s+mainImage\s*\("#, options: .regularExpression) != nil {
                form = .shadertoy
                let (parameters, body) = try Self.uniforms(lines, file: name)
                parts = try ShadertoyShader.parts((parameters, try Self.imageReadings(body, parameters: parameters, file: name)), file: name)
            } else {
                form = .glsl
                let (named, uniformless) = try Self.uniforms(lines, file: name)
                let (parameters, renamed) = Self.apartFromFunctions(named, body: uniformless)
                let body = try Self.imageReadings(renamed, parameters: parameters, file: name)
                let kind = try Self.kind(of: Self.withoutComments(body), file: name)
                let call = switch kind {
                case .color: "effect(position, vfx_pixel(cell))"
                case .layer: "effect(position)"
                case .distortion: "source(effect(position))"
                }
                parts = Parts(kind: kind, parameters: parameters, body: body, call: call)
            }
        }
        var parameters = parts.parameters
        guard parameters.count <= Self.mostParameters else { throw ShaderError("\(name): more than \(Self.mostParameters) parameters") }
        var offset = Self.firstParameterOffset
        for i in parameters.indices {
            let kind = parameters[i].kind
            offset = (offset + kind.alignment - 1) / kind.alignment * kind.alignment
            parameters[i].offset = offset
            if kind == .sampler2D {
                parameters[i].member = "vfx_idesc_\(parameters.prefix(i).filter { $0.kind == .sampler2D }.count)"
            } else if parameters[i].member.isEmpty {
                parameters[i].member = parameters[i].name
            }
            offset += kind.components * 4
        }
        self.parameters = parameters
        kind = parts.kind
        functions = parts.functions
        uniformSize = (offset + 15) / 16 * 16
        readsSampledFrame = Self.readsSampledFrame(parts, linear: linear)
        program = Self.program(parts, parameters: parameters, linear: linear)
    }

    /// Whether the user's code, or the form's around it, calls `source`: then `source` is
    /// the device's bilinear filter over an image of the frame (one filtered read, where
    /// four texel reads and their blend cost lavapipe four times as much). In linear light
    /// the texels are decoded before they are blended, so that path keeps the four reads.
    static func readsSampledFrame(_ parts: Parts, linear: Bool) -> Bool {
        guard !linear else { return false }
        return [parts.before, parts.body, parts.after, parts.call].contains { ShaderTokens($0).tokens.contains { $0.isWord("source") } }
    }

    /// A shader is one file: no `#include` (but a Metal file's two headers, which vidfx
    /// gives), nor the extensions that would make the compiler read one, however written:
    /// the lines are read as the compiler reads them, continued lines (`\` at the end)
    /// joined, so that `#inc\` + `lude "../../etc/passwd"` is refused too.
    static func refuseIncludes(_ text: String, file: String) throws(ShaderError) {
        guard text.contains("include") || text.contains("\\") else { return }
        let metal = file.lowercased().hasSuffix(".metal")
        var line = 1
        var joined = ""
        var lines: [(text: String, line: Int)] = []
        var first = 1
        // By scalars: "\r\n" is one Character, which a split at "\n" would not cut.
        for scalars in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            var piece = Substring(String(scalars))
            if piece.unicodeScalars.last == "\r" { piece = Substring(String(piece.unicodeScalars.dropLast())) }
            if piece.hasSuffix("\\") {
                joined += piece.dropLast()
            } else {
                lines.append((joined + piece, first))
                joined = ""
                first = line + 1
            }
            line += 1
        }
        if !joined.isEmpty { lines.append((joined, first)) }
        for (text, number) in lines {
            if text.contains("include_directive") || text.contains("shading_language_include") {
                throw ShaderError("\(file):\(number): the include extensions are not taken (a shader is one file)")
            }
            var rest = text.drop { $0 == " " || $0 == "\t" }
            guard rest.first == "#" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("include") else { continue }
            let target = rest.dropFirst("include".count).trimmingCharacters(in: .whitespaces)
            if metal && (target.hasPrefix("<metal_stdlib>") || target.hasPrefix("<SwiftUI/SwiftUI.h>")) { continue }
            let named = target.isEmpty ? "" : " " + target.prefix(60)
            throw ShaderError("\(file):\(number): #include\(named) is not read (a shader is one file\(metal ? "; <metal_stdlib> and <SwiftUI/SwiftUI.h> are given" : ""))")
        }
    }

    /// vidfx's own `#pragma vidfx …` lines (each left blank): `linear` for linear light.
    static func pragmas(_ text: String, file: String) throws(ShaderError) -> (String, linear: Bool) {
        guard text.contains("vidfx") else { return (text, false) }
        var lines = text.components(separatedBy: "\n")
        var linear = false
        for (i, line) in lines.enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "#pragma", words[1] == "vidfx" else { continue }
            guard words.count == 3, words[2] == "linear" else {
                throw ShaderError("\(file):\(i + 1): '\(line.trimmingCharacters(in: .whitespaces).prefix(60))': vidfx's pragma is '#pragma vidfx linear'")
            }
            linear = true
            lines[i] = ""
        }
        return (lines.joined(separator: "\n"), linear)
    }

    /// The file's lines, `#include` refused and `#version` blanked (vidfx gives the version).
    static func glslLines(_ text: String, file: String) throws(ShaderError) -> [String] {
        var lines = text.components(separatedBy: "\n")
        for (i, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") && trimmed.dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("include") {
                throw ShaderError("\(file):\(i + 1): #include is not read (a shader is one file)")
            }
            if trimmed.hasPrefix("#version") { lines[i] = "" }
        }
        return lines
    }

    /// The `uniform` lines as parameters (each line left blank: it goes into the uniform
    /// block), and the text without them.
    static func uniforms(_ lines: [String], file: String) throws(ShaderError) -> (parameters: [Parameter], body: String) {
        var lines = lines
        var parameters: [Parameter] = []
        for (i, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("uniform ") || trimmed.hasPrefix("uniform\t") else { continue }
            let parameter = try Self.parameter(trimmed, file: file, line: i + 1)
            guard !parameters.contains(where: { $0.name == parameter.name }) else {
                throw ShaderError("\(file):\(i + 1): '\(parameter.name)' is declared twice")
            }
            guard parameters.count < Self.mostParameters else {
                throw ShaderError("\(file):\(i + 1): more than \(Self.mostParameters) parameters")
            }
            parameters.append(parameter)
            lines[i] = ""
        }
        return (parameters, lines.joined(separator: "\n"))
    }

    /// An image parameter's readings in GLSL (`texture(key, uv)`, `textureLod`,
    /// `texelFetch(key, p, 0)`, `textureSize(key, 0)`) as reads of its pixels; any other
    /// use of its name is one line.
    static func imageReadings(_ body: String, parameters: [Parameter], file: String) throws(ShaderError) -> String {
        let images = parameters.filter { $0.kind == .sampler2D }.map(\.name)
        guard !images.isEmpty else { return body }
        var tokens = ShaderTokens(body)
        for i in tokens.tokens.indices {
            let t = tokens.tokens[i]
            guard t.kind == .word, let k = images.firstIndex(of: t.text) else { continue }
            guard let open = tokens.previous(i), tokens.tokens[open].isPunctuation("("), let function = tokens.previous(open),
                  let after = tokens.next(i + 1), tokens.tokens[after].isPunctuation(",") else {
                throw ShaderError("\(file):\(t.line): '\(t.text)' is read with texture(\(t.text), uv), texelFetch or textureSize, not passed on")
            }
            switch tokens.tokens[function].text {
            case "texture", "textureLod", "textureGrad": tokens.tokens[function].text = "vfx_image_\(k)"
            case "texelFetch": tokens.tokens[function].text = "vfx_image_\(k)_fetch"
            case "textureSize":
                tokens.tokens[function].text = "vfx_image_size"
                tokens.tokens[i].text = "vfx_idesc_\(k)"
                continue
            default:
                throw ShaderError("\(file):\(t.line): '\(t.text)' is read with texture, texelFetch or textureSize, not \(tokens.tokens[function].text)")
            }
            tokens.blank(i...after)
        }
        return tokens.text
    }

    /// GLSL's functions, which a parameter may be named after (warhol's `mix`): such a
    /// parameter's uniform is kept apart (`vfx_p_mix`), and the name read as it wherever it
    /// is not called.
    static let functionNames: Set<String> = [
        "mix", "step", "smoothstep", "clamp", "min", "max", "abs", "sign", "floor", "ceil", "fract", "mod", "pow", "exp", "log", "exp2",
        "log2", "sqrt", "length", "distance", "dot", "cross", "normalize", "reflect", "refract", "radians", "degrees", "sin", "cos",
        "tan", "asin", "acos", "atan", "round", "trunc", "noise", "texture", "fma", "modf", "all", "any", "not",
    ]

    static func apartFromFunctions(_ parameters: [Parameter], body: String) -> ([Parameter], String) {
        let apart = Set(parameters.map(\.name).filter { functionNames.contains($0) })
        guard !apart.isEmpty else { return (parameters, body) }
        var tokens = ShaderTokens(body)
        for i in tokens.tokens.indices where tokens.tokens[i].kind == .word && apart.contains(tokens.tokens[i].text) {
            if let n = tokens.next(i + 1), tokens.tokens[n].isPunctuation("(") { continue }
            if let p = tokens.previous(i), tokens.tokens[p].isPunctuation(".") { continue }
            tokens.tokens[i].text = "vfx_p_" + tokens.tokens[i].text
        }
        let renamed = parameters.map { p -> Parameter in
            var p = p
            if apart.contains(p.name) { p.member = "vfx_p_" + p.name }
            return p
        }
        return (renamed, tokens.text)
    }

    /// The names vidfx gives the shader; a parameter may not take one.
    static let builtIns: Set<String> = ["size", "time", "frame", "source", "effect", "main", "position", "color"]

    /// Whether `name` is a name a parameter may have (ASCII, a letter first, at most 64).
    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.count <= 64 && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// A `uniform TYPE NAME; // range A…B; default V; help` line.
    static func parameter(_ line: String, file: String, line number: Int) throws(ShaderError) -> Parameter {
        let (declaration, comment): (Substring, Substring?) = {
            if let slashes = line.range(of: "//") { return (line[..<slashes.lowerBound], line[slashes.upperBound...]) }
            return (Substring(line), nil)
        }()
        let words = declaration.replacingOccurrences(of: ";", with: " ; ").split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 4, words[0] == "uniform", words[3] == ";" else {
            throw ShaderError("\(file):\(number): a parameter is 'uniform TYPE NAME;', one a line")
        }
        guard let kind = Parameter.Kind(rawValue: String(words[1])) else {
            throw ShaderError("\(file):\(number): '\(words[1])': a parameter is one of \(Parameter.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let name = String(words[2])
        guard isName(name) else { throw ShaderError("\(file):\(number): '\(name)' is not a parameter name") }
        guard !builtIns.contains(name), !name.hasPrefix("vfx_"), !name.hasPrefix("gl_") else {
            throw ShaderError("\(file):\(number): '\(name)' is a name vidfx gives the shader; choose another")
        }
        var parameter = Parameter(name: name, kind: kind, defaultValue: Array(repeating: 0, count: kind.components), range: nil,
                                  help: "", isColor: false, offset: 0, isRequired: kind == .sampler2D)
        try describe(&parameter, comment: String(comment ?? ""), file: file, line: number)
        return parameter
    }

    /// Reads `range A…B; default V; help` from a parameter's comment.
    static func describe(_ parameter: inout Parameter, comment: String, file: String, line number: Int) throws(ShaderError) {
        let (name, kind) = (parameter.name, parameter.kind)
        for part in comment.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.hasPrefix("range "), kind != .sampler2D {
                let bounds = item.dropFirst(6).replacingOccurrences(of: "…", with: "..").components(separatedBy: "..")
                guard bounds.count == 2, let low = Double(bounds[0].trimmingCharacters(in: .whitespaces)),
                      let high = Double(bounds[1].trimmingCharacters(in: .whitespaces)), low.isFinite, high.isFinite, low <= high else {
                    throw ShaderError("\(file):\(number): a range is 'range LOW…HIGH' (range 0…1)")
                }
                parameter.range = low...high
            } else if item.hasPrefix("default "), kind == .sampler2D {
                let text = item.dropFirst(8).trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty, !text.hasPrefix("/"), !text.contains(".."), text.utf8.count <= 255 else {
                    throw ShaderError("\(file):\(number): an image's default is a file beside the shader ('default key.png')")
                }
                parameter.defaultFile = text
                parameter.isRequired = false
            } else if item.hasPrefix("range "), kind == .sampler2D {
                throw ShaderError("\(file):\(number): an image has no range")
            } else if item.hasPrefix("default ") {
                let text = item.dropFirst(8).trimmingCharacters(in: .whitespaces)
                guard let value = ShaderValue.parse(text, kind: kind) else {
                    throw ShaderError("\(file):\(number): default '\(text)' is not a \(kind.rawValue)")
                }
                parameter.defaultValue = value.components
                parameter.isColor = value.isColor
                parameter.isRequired = false
            } else if !item.isEmpty {
                parameter.help = parameter.help.isEmpty ? item : parameter.help + "; " + item
            }
        }
        if let range = parameter.range, !parameter.isRequired, kind != .sampler2D, !parameter.defaultValue.allSatisfy(range.contains) {
            throw ShaderError("\(file):\(number): the default of '\(name)' is outside its range")
        }
    }

    /// The source without its comments, for finding the `effect` function.
    static func withoutComments(_ text: String) -> String {
        ShaderTokens(text).tokens.filter { $0.kind != .comment }.map(\.text).joined()
    }

    static func kind(of text: String, file: String) throws(ShaderError) -> Kind {
        let patterns: [(Kind, String)] = [
            (.color, #"\bvec4\s+effect\s*\(\s*(in\s+)?vec2\s+\w+\s*,\s*(in\s+)?vec4\s+\w+\s*\)"#),
            (.layer, #"\bvec4\s+effect\s*\(\s*(in\s+)?vec2\s+\w+\s*\)"#),
            (.distortion, #"\bvec2\s+effect\s*\(\s*(in\s+)?vec2\s+\w+\s*\)"#),
        ]
        let found = patterns.filter { text.range(of: $0.1, options: .regularExpression) != nil }.map(\.0)
        guard found.count == 1 else {
            if found.isEmpty {
                throw ShaderError("\(file): no effect function: a shader has 'vec4 effect(vec2 position, vec4 color)' (colour), "
                                  + "'vec4 effect(vec2 position)' (layer) or 'vec2 effect(vec2 position)' (distortion)")
            }
            throw ShaderError("\(file): more than one effect function (\(found.map(\.rawValue).joined(separator: ", ")))")
        }
        return found[0]
    }

    /// `source` as four texel reads, blended here (each texel decoded first in linear light).
    static let pixelSource = """
        vec4 source(vec2 p) {
            vec2 t = p - 0.5;
            vec2 f = floor(t);
            vec2 w = t - f;
            ivec2 i = ivec2(f);
            // At a texel's centre (pixelate, a hook's HOOKED_tex) one read is the answer.
            if (w == vec2(0.0)) return vfx_pixel(i);
            return mix(mix(vfx_pixel(i), vfx_pixel(i + ivec2(1, 0)), w.x), mix(vfx_pixel(i + ivec2(0, 1)), vfx_pixel(i + ivec2(1, 1)), w.x), w.y);
        }
        """

    /// `source` as one read through the device's bilinear filter: the frame as a BGRA
    /// image (binding 6), in pixels with texel centres at i + 0.5 and clamped at the edges,
    /// as the contract has it.
    static let sampledSource = """
        layout(binding = 6) uniform sampler2D vfx_frame;
        vec4 source(vec2 p) { return textureLod(vfx_frame, p, 0.0); }
        """

    /// The compute shader: the frame's buffers and the uniform block, `source`, what the
    /// form puts before the user's lines, those lines (numbered from 1 again), what it puts
    /// after them, and `main`, which makes the form's call once a pixel.
    static func program(_ parts: Parts, parameters: [Parameter], linear: Bool = false) -> String {
        let uniforms = parameters.map { p in
            "    \(p.kind == .bool ? "bool" : p.kind == .sampler2D ? "ivec4" : p.kind.rawValue) \(p.member);"
        }.joined(separator: "\n")
        // Each image: its texels (clamped), bilinear at a point in its pixels, and in 0…1.
        let images = parameters.filter { $0.kind == .sampler2D }.map(\.member).enumerated().map { k, d in
            """
            vec4 vfx_image_\(k)_fetch(ivec2 q, int lod) {
                q = clamp(q, ivec2(0), \(d).xy - 1);
                return vfx_unpack(vfx_images[\(d).z + q.y * \(d).x + q.x]);
            }
            vec4 vfx_image_\(k)_fetch(uvec2 q) { return vfx_image_\(k)_fetch(ivec2(q), 0); }
            vec4 vfx_image_\(k)_fetch(ivec2 q) { return vfx_image_\(k)_fetch(q, 0); }
            vec4 vfx_image_\(k)(vec2 uv) {
                vec2 t = uv * vec2(\(d).xy) - 0.5;
                vec2 f = floor(t);
                vec2 w = t - f;
                ivec2 i = ivec2(f);
                return mix(mix(vfx_image_\(k)_fetch(i, 0), vfx_image_\(k)_fetch(i + ivec2(1, 0), 0), w.x),
                           mix(vfx_image_\(k)_fetch(i + ivec2(0, 1), 0), vfx_image_\(k)_fetch(i + ivec2(1, 1), 0), w.x), w.y);
            }
            vec4 vfx_image_\(k)(vec2 uv, float bias) { return vfx_image_\(k)(uv); }
            vec4 vfx_image_\(k)(vec2 uv, vec2 dx, vec2 dy) { return vfx_image_\(k)(uv); }
            """
        }.joined(separator: "\n")
        // Every loop of the user's also asks whether the run was halted (past its time limit).
        var guarded = ShaderTokens(parts.body)
        guarded.guardLoops(with: "vfx_go()")
        return """
            #version 450
            // The group's width is the device's to choose (a constant given at the pipeline).
            layout(local_size_x_id = 0, local_size_y = 1) in;
            // The frame as texel buffers over the mapped memory: lavapipe reads and writes
            // these in vectors, where a storage buffer costs a loop over lanes (half the
            // time a frame for a sepia at 1080p). The source is seen twice: a pixel at a
            // time (RGBA8, for `source`) and four at a time (the pixel's own, in `main`).
            layout(binding = 0) uniform samplerBuffer vfx_source;
            layout(binding = 4) uniform usamplerBuffer vfx_blocks;
            layout(binding = 1, rgba32ui) uniform writeonly uimageBuffer vfx_destination;
            layout(std430, binding = 3) readonly buffer VfxImages { uint vfx_images[]; };
            // The halt word: the host sets it when a run passes its time limit, and every loop
            // of the user's ends at its next look (its first turn, then one in 64), so an endless
            // loop ends, and an invocation that starts after the halt does no more than a turn.
            layout(std430, binding = 5) volatile readonly buffer VfxHalt { uint vfx_halt; };
            uint vfx_turns = 0u;
            bool vfx_halted = false;
            bool vfx_go() {
                if ((vfx_turns++ & 63u) == 0u && vfx_halt != 0u) vfx_halted = true;
                return !vfx_halted;
            }
            layout(std140, binding = 2) uniform VfxUniforms {
                vec2 size;
                float time;
                int frame;
                float vfx_rate;
                float vfx_delta;
                float vfx_random;
                float vfx_unused;
                vec4 vfx_date;
            \(uniforms)
            };
            vec3 vfx_decode(vec3 c) { return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045))); }
            vec3 vfx_encode(vec3 l) {
                l = max(l, 0.0);
                return mix(12.92 * l, 1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, greaterThan(l, vec3(0.0031308)));
            }
            vec4 vfx_unpack(uint p) {
                vec4 c = vec4(float((p >> 16) & 255u), float((p >> 8) & 255u), float(p & 255u), float(p >> 24)) / 255.0;
                \(linear ? "return vec4(vfx_decode(c.rgb), c.a);" : "return c;")
            }
            vec4 vfx_pixel(ivec2 q) {
                q = clamp(q, ivec2(0), ivec2(size) - 1);
                // Bytes B, G, R, A read as an RGBA8 texel: swizzled back.
                vec4 c = texelFetch(vfx_source, q.y * int(size.x) + q.x).bgra;
                \(linear ? "return vec4(vfx_decode(c.rgb), c.a);" : "return c;")
            }
            ivec2 vfx_image_size(ivec4 d, int lod) { return d.xy; }
            \(readsSampledFrame(parts, linear: linear) ? sampledSource : pixelSource)
            \(images)
            \(parts.before)
            #line 1
            \(guarded.text)
            \(parts.after)
            void main() {
                // Four pixels an invocation, read as one 16-byte texel and written as one:
                // lavapipe's texel reads and writes cost per lane far more than the few
                // operations of a colour shader (a 1080p sepia 6.5 ms a dispatch, against
                // 14–18 ms a pixel an invocation). The frame is taken as one run of pixels,
                // so a width that is not a multiple of four needs nothing else.
                int vfx_width = int(size.x), vfx_count = vfx_width * int(size.y);
                int vfx_block = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x);
                int vfx_first = vfx_block * 4;
                if (vfx_first >= vfx_count) return;
                int vfx_y = vfx_first / vfx_width, vfx_x = vfx_first - vfx_y * vfx_width;
                uvec4 vfx_in = texelFetch(vfx_blocks, vfx_block);
                uvec4 vfx_out = vfx_in;
                for (int vfx_k = 0; vfx_k < 4; vfx_k++) {
                    if (vfx_first + vfx_k < vfx_count) {
                        ivec2 cell = ivec2(vfx_x, vfx_y);
                        vec2 position = vec2(cell) + 0.5;
                        vec4 vfx_here = vfx_unpack(vfx_in[vfx_k]);
                        vec4 result = \(parts.call.replacingOccurrences(of: "vfx_pixel(cell)", with: "vfx_here"));
                        \(linear ? "result.rgb = vfx_encode(result.rgb);" : "")
                        // Rounded here, not by the device's conversion: the same bytes on every device.
                        uvec4 q = uvec4(clamp(result, 0.0, 1.0) * 255.0 + 0.5);
                        vfx_out[vfx_k] = q.b | (q.g << 8) | (q.r << 16) | (q.a << 24);
                    }
                    if (++vfx_x == vfx_width) { vfx_x = 0; vfx_y++; }
                }
                imageStore(vfx_destination, vfx_block, vfx_out);
            }
            """
    }
}

/// A parameter's value as text: `0.5`, `0.5,0.25`, `#ff8800`, `true`.
public struct ShaderValue: Sendable, Equatable {
    /// Its components.
    public var components: [Double]
    /// Whether it was written as a colour.
    public var isColor: Bool

    /// `text` as a value of `kind`, or nil.
    public static func parse(_ text: String, kind: ShaderSource.Parameter.Kind) -> ShaderValue? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("#"), kind == .vec3 || kind == .vec4 {
            let hex = text.dropFirst()
            guard hex.count == 6 || hex.count == 8, let bits = UInt32(hex, radix: 16) else { return nil }
            let rgba = hex.count == 6 ? bits << 8 | 0xFF : bits
            let channels = [24, 16, 8, 0].map { Double(rgba >> UInt32($0) & 0xFF) / 255 }
            return ShaderValue(components: Array(channels.prefix(kind.components)), isColor: true)
        }
        if kind == .bool {
            switch text { case "true", "1": return ShaderValue(components: [1], isColor: false)
            case "false", "0": return ShaderValue(components: [0], isColor: false)
            default: return nil }
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == kind.components else { return nil }
        var values: [Double] = []
        for part in parts {
            guard let v = Double(part), v.isFinite, abs(v) < 1e9 else { return nil }
            if kind == .int, v != v.rounded() { return nil }
            values.append(v)
        }
        return ShaderValue(components: values, isColor: false)
    }
}

/// Why a shader cannot be read, compiled or run: one line, naming the file (and the
/// line, when the cause has one).
public struct ShaderError: Error, CustomStringConvertible, Sendable {
    /// The line.
    public let message: String
    /// The line.
    public var description: String { message }
    /// - Parameter message: the line; any control character in it (a newline quoted from
    /// the file) becomes a space, so that it stays one line.
    public init(_ message: String) {
        self.message = String(String.UnicodeScalarView(message.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
