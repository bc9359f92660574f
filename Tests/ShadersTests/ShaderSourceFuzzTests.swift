import Foundation
@testable import Shaders
import TestSupport
import Testing

/// Shader sources are input (a file a user was sent, the studio's editor): the front ends
/// are fuzzed with seeded mutations of shaders in every form. Each mutation is read
/// without a trap, either refused with one line naming the file or read with the user's
/// lines kept where they were (so the compiler's messages name the right line); a sample
/// is compiled, which ends in a program or one line, never a hang.
@Suite struct ShaderSourceFuzzTests {
    static let seeds: [(name: String, text: String)] = [
        ("sepia.metal", ShaderFormsTests.sepiaTone),
        ("article.metal", ShaderFormsTests.layers),
        ("mix.metal", """
            #include <metal_stdlib>
            using namespace metal;
            constant float k = 0.5f;
            inline half3 tint(half3 c) { return c * half3(1.0h, 0.9h, 0.8h); }
            [[ stitchable ]] half4 f(float2 position, half4 color, float amount = 0.5, float4 boundingRect) {
                float w = fmod((float)color.r, 0.25h) + M_PI_F * k;
                half4 out = half4(tint(color.rgb), color.a);
                out[1] = saturate(max3(out.r, out.g, out.b) * amount + w);
                return position.x < boundingRect.z / 2 ? out : color;
            }
            [[ stitchable ]] half4 g(float2 p, SwiftUI::Layer l, texture2d<half> keyTexture [[texture(1)]], float2 keySize) {
                constexpr sampler s(filter::linear);
                return keyTexture.sample(s, p / keySize) * l.sample(p);
            }
            """),
        ("toy.glsl", """
            #define A 0.25
            const float n = 240.0;
            void mainImage(out vec4 fragColor, in vec2 fragCoord) {
                vec2 uv = fragCoord / iResolution.xy;
                vec3 c = texture(iChannel0, uv).rgb * texelFetch(iChannel0, ivec2(fragCoord), 0).rgb;
                fragColor = vec4(c * (0.9 + A * sin(uv.y * n + iTime)), 1.0);
            }
            """),
        ("fx.hook", """
            //!PARAM amount
            //!DESC How much
            //!TYPE float
            //!MINIMUM 0.0
            //!MAXIMUM 1.0
            0.5
            //!HOOK MAIN
            //!BIND HOOKED
            vec4 hook() { return mix(HOOKED_tex(HOOKED_pos), HOOKED_texOff(vec2(1.0)), amount); }
            """),
        ("key.glsl", """
            uniform sampler2D key; // default key.png
            uniform vec4 tint; // default #ff8800; the tint
            uniform float amount; // range 0…1; default 0.5
            vec4 effect(vec2 position, vec4 color) { return mix(color, texture(key, position / size) * tint, amount); }
            """),
    ]

    /// Pieces a mutation inserts: the constructs each front end looks for.
    static let pieces = ["[[", "]]", "[[stitchable]]", "::", "SwiftUI::Layer", "texture2d<half>", "(", ")", "{", "}", ",", ";", "#include",
                         "#", "//!", "//!HOOK MAIN\n", "//!PARAM x\n", "uniform ", "sampler2D", "iChannel0", "iChannel3", "texture(",
                         "mainImage", "half4", "float2", "layer.sample(", "(float)", "constexpr sampler", "=", "/*", "*/", "//", "\"",
                         "0x", "1e", "1.5h", "\n", "…", "\u{0}", "é", "vfx_", "gl_", "using namespace", "#line 9999"]

    static func mutated(_ text: String, _ rng: inout SeededGenerator) -> String {
        var s = Array(text.unicodeScalars)
        for _ in 0..<Int(rng.next() % 4 + 1) {
            let at = s.isEmpty ? 0 : Int(rng.next() % UInt64(s.count))
            switch rng.next() % 5 {
            case 0: s.insert(contentsOf: pieces[Int(rng.next() % UInt64(pieces.count))].unicodeScalars, at: at)
            case 1: s.removeSubrange(at..<min(s.count, at + Int(rng.next() % 24)))
            case 2: if !s.isEmpty { s[at] = Unicode.Scalar(UInt8(rng.next() % 95 + 32)) }
            case 3: let end = min(s.count, at + Int(rng.next() % 40)); s.insert(contentsOf: s[at..<end], at: Int(rng.next() % UInt64(s.count + 1)))
            default: s = Array(s.prefix(at))
            }
        }
        var out = ""
        out.unicodeScalars.append(contentsOf: s)
        return out
    }

    /// The user's lines where they were: the program holds, after `#line 1`, as many lines
    /// of the user's as the file has before the code vidfx adds after them.
    static func keepsLines(_ text: String, name: String, function: String?) throws -> Bool {
        let parts: ShaderSource.Parts
        if name.hasSuffix(".metal") {
            parts = try MetalShader.parts(text, file: name, function: function)
        } else if name.hasSuffix(".hook") {
            parts = try HookShader.parts(try ShaderSource.glslLines(text, file: name), file: name)
        } else {
            parts = ShaderSource.Parts(kind: .color, parameters: [], body: try ShaderSource.uniforms(try ShaderSource.glslLines(text, file: name), file: name).body, call: "")
        }
        return parts.body.filter { $0 == "\n" }.count == text.filter { $0 == "\n" }.count
    }

    @Test func mutatedShadersAreReadOrRefusedInOneLine() throws {
        // The seeds themselves are good shaders.
        for (name, text) in Self.seeds {
            for function in name == "article.metal" ? ["pixelate", "tiled"] : name == "mix.metal" ? ["f", "g"] : [nil as String?] {
                #expect(throws: Never.self, "\(name) \(function ?? "")") { _ = try ShaderProgram(try ShaderSource(text, name: name, function: function)) }
            }
        }
        var rng = SeededGenerator("shader fuzz", seed: 66_2026)
        var read = 0, refused = 0, compiled = 0, compileRefused = 0
        for n in 0..<3000 {
            let (name, original) = Self.seeds[n % Self.seeds.count]
            let text = Self.mutated(original, &rng)
            let function = name == "article.metal" ? (n % 2 == 0 ? "pixelate" : "tiled") : name == "mix.metal" ? (n % 2 == 0 ? "f" : "g") : nil
            do {
                let source = try ShaderSource(text, name: name, function: function)
                read += 1
                #expect(try Self.keepsLines(text, name: name, function: function), "case \(n): lines moved in \(name)")
                // A sample is compiled: a program, or one line at a line of the file.
                if n % 60 == 0 {
                    do { _ = try ShaderProgram(source); compiled += 1 } catch {
                        compileRefused += 1
                        #expect(!error.message.contains("\n") && error.message.hasPrefix(name), "case \(n): \(error.message)")
                    }
                }
            } catch let error as ShaderError {
                refused += 1
                #expect(!error.message.isEmpty && !error.message.contains("\n") && error.message.hasPrefix(name), "case \(n): \(error.message)")
            } catch {
                Issue.record("case \(n): \(error)")
            }
        }
        print("shader fuzz: 3000 mutations, \(read) read, \(refused) refused; of those compiled, \(compiled) programs, \(compileRefused) refused")
        #expect(read > 300 && refused > 300, "the mutations reach both outcomes: \(read) read, \(refused) refused")
    }
}
