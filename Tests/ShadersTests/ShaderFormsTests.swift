import Effects
import Foundation
import FrameCore
import Shaders
import Testing
import TestSupport

/// The forms shaders are published in, read as they are written (issue 66): SwiftUI's
/// Metal (`[[stitchable]]` functions, translated by vidfx's own front end), Shadertoy's
/// `mainImage`, and mpv's one-pass hooks with `//!PARAM`. Each against a reference
/// computed here in Double from the shader's source under the conventions of
/// docs/shaders.md, on Mesa's lavapipe in CI.
@Suite struct ShaderFormsTests {
    /// A frame's pixels as RGBA in 0…1.
    struct Picture {
        let width: Int, height: Int
        let pixels: [UInt32]
        init(_ frame: Frame) {
            (width, height) = (frame.width, frame.height)
            pixels = ShaderProgramTests.pixels(frame)
        }
        func texel(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let p = pixels[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
            return SIMD4(Double(p >> 16 & 255), Double(p >> 8 & 255), Double(p & 255), Double(p >> 24)) / 255
        }
        /// `source(p)`: bilinear, texel centres at i + 0.5, clamped at the edges.
        func sample(_ x: Double, _ y: Double) -> SIMD4<Double> {
            let (tx, ty) = (x - 0.5, y - 0.5)
            let (fx, fy) = (tx.rounded(.down), ty.rounded(.down))
            let (wx, wy) = (tx - fx, ty - fy)
            let (ix, iy) = (Int(fx), Int(fy))
            let top = texel(ix, iy) * (1 - wx) + texel(ix + 1, iy) * wx
            let bottom = texel(ix, iy + 1) * (1 - wx) + texel(ix + 1, iy + 1) * wx
            return top * (1 - wy) + bottom * wy
        }
    }

    /// The largest difference in levels between `frame` and `reference(x + 0.5, y + 0.5)`.
    static func largestDifference(_ frame: Frame, _ reference: (Double, Double) -> SIMD4<Double>) -> Int {
        let out = Picture(frame)
        var most = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let want = reference(Double(x) + 0.5, Double(y) + 0.5)
                let got = out.texel(x, y)
                for c in 0..<4 {
                    let level = Int((min(max(want[c], 0), 1) * 255 + 0.5).rounded(.down))
                    most = max(most, abs(level - Int((got[c] * 255).rounded())))
                }
            }
        }
        return most
    }

    static func run(_ text: String, name: String, function: String? = nil, time: Double = 0, tick: Int64 = 0,
                    values: [String: [Double]] = [:]) throws -> (source: ShaderSource, input: Picture, output: Frame) {
        let source = try ShaderSource(text, name: name, function: function)
        let program = try ShaderProgram(source)
        let frame = try ShaderProgramTests.frame()
        var out = frame
        try program.run(&out, time: time, tick: tick, frameRate: 30, values: values)
        return (source, Picture(frame), out)
    }

    /// `source(p)` at points between texels is the device's bilinear filter (one read of
    /// the frame as an image): within a level of bilinear in Double, on seeded noise (every
    /// neighbour far from the next) and on a photo, at fractions a filter's fixed-point
    /// weights round worst (near 1/512 either side of a step), past every edge, and exact
    /// at texel centres.
    @Test func sourceBetweenTexelsIsBilinearWithinALevel() throws {
        var random = SeededGenerator("sourceBetweenTexelsIsBilinearWithinALevel", seed: 66)
        var noise = Frame(width: 61, height: 37)
        noise.withUnsafeMutableBytes { b in for i in b.indices { b[i] = UInt8.random(in: 0...255, using: &random) } }
        let photo = try ShaderProgramTests.frame()
        let offsets: [(Double, Double)] = [(0.3, 0.7), (0.001953, 0.998), (0.5, 0.25), (-0.75, 0.125), (0.0, 0.0)]
        for (name, input) in [("noise", noise), ("photo", photo)] {
            for (dx, dy) in offsets {
                let text = "vec4 effect(vec2 position) { return source(position * vec2(1.02, 0.97) + vec2(\(dx), \(dy)) - vec2(3.0)); }"
                let program = try ShaderProgram(try ShaderSource(text, name: "between.glsl"))
                var out = input
                try program.run(&out, time: 0, tick: 0)
                let picture = Picture(input)
                let most = Self.largestDifference(out) { x, y in picture.sample(x * 1.02 + dx - 3, y * 0.97 + dy - 3) }
                #expect(most <= 1, "\(name), offset \(dx),\(dy): \(most) levels from bilinear")
            }
        }
        let identity = try ShaderProgram(try ShaderSource("vec4 effect(vec2 position) { return source(position); }", name: "same.glsl"))
        var same = noise
        try identity.run(&same, time: 0, tick: 0)
        #expect(ShaderProgramTests.pixels(same) == ShaderProgramTests.pixels(noise), "source(position) is the pixel itself")
    }

    /// The article's three Metal functions, verbatim (its double semicolon included).
    static let sepiaTone = """
        [[stitchable]]
        half4 sepiaTone(float2 pos, half4 color, float amount) {
            float sepiaRed   = color.r * 0.393 + color.g * 0.769 + color.b * 0.189;
            float sepiaGreen = color.r * 0.349 + color.g * 0.686 + color.b * 0.168;
            float sepiaBlue  = color.r * 0.272 + color.g * 0.534 + color.b * 0.131;
            half4 sepiaColor = half4(clamp(sepiaRed, 0.0, 1.0), clamp(sepiaGreen, 0.0, 1.0), clamp(sepiaBlue, 0.0, 1.0), color.a);
            return (1.0 - amount) * color + amount * sepiaColor;;
        }
        """

    static let layers = """
        #include <metal_stdlib>
        #include <SwiftUI/SwiftUI.h>
        using namespace metal;

        [[ stitchable ]]
        half4 pixelate(float2 position, SwiftUI::Layer layer, float pixelSize) {
            float2 pixelatedPosition = floor(position / pixelSize) * pixelSize;
            half4 color = layer.sample(pixelatedPosition);
            return color;
        }

        [[stitchable]]
        half4 tiled(float2 position, SwiftUI::Layer layer, float2 size) {
            float2 tiledCoord = (position / size) * 2;
            float2 wrappedCoord = fract(tiledCoord);
            float2 sampleCoord = wrappedCoord * size;
            return layer.sample(sampleCoord);
        }
        """

    /// The article's sepia, pixelate and tiled, as written, within 2 levels of their
    /// source computed in Double; their kinds and parameters from their signatures.
    @Test func theArticlesMetalFunctionsRunVerbatim() throws {
        let sepia = try Self.run(Self.sepiaTone, name: "sepia.metal", values: ["amount": [0.6]])
        #expect(sepia.source.form == .metal && sepia.source.kind == .color && sepia.source.parameters.map(\.name) == ["amount"])
        #expect(sepia.source.parameters[0].isRequired, "no C++ default: it must be given")
        let sepiaMost = Self.largestDifference(sepia.output) { x, y in
            let c = sepia.input.sample(x, y), a = 0.6
            let s = SIMD4(min(max(c.x * 0.393 + c.y * 0.769 + c.z * 0.189, 0), 1), min(max(c.x * 0.349 + c.y * 0.686 + c.z * 0.168, 0), 1),
                          min(max(c.x * 0.272 + c.y * 0.534 + c.z * 0.131, 0), 1), c.w)
            return c * (1 - a) + s * a
        }
        #expect(sepiaMost <= 2, "sepiaTone: \(sepiaMost) levels")

        let pixelate = try Self.run(Self.layers, name: "article.metal", function: "pixelate", values: ["pixelSize": [12]])
        #expect(pixelate.source.kind == .layer && pixelate.source.functions == ["pixelate", "tiled"])
        let pixelateMost = Self.largestDifference(pixelate.output) { x, y in
            pixelate.input.sample((x / 12).rounded(.down) * 12, (y / 12).rounded(.down) * 12)
        }
        #expect(pixelateMost <= 2, "pixelate: \(pixelateMost) levels")

        let tiled = try Self.run(Self.layers, name: "article.metal", function: "tiled")
        #expect(tiled.source.parameters.isEmpty, "size is the frame's size, bound by name and type")
        let (w, h) = (Double(tiled.input.width), Double(tiled.input.height))
        let tiledMost = Self.largestDifference(tiled.output) { x, y in
            let (u, v) = (x / w * 2, y / h * 2)
            return tiled.input.sample((u - u.rounded(.down)) * w, (v - v.rounded(.down)) * h)
        }
        #expect(tiledMost <= 2, "tiled: \(tiledMost) levels")
    }

    /// The subset beyond the article: helpers (also `inline`), constants, `h` and `f`
    /// literals, C casts, `const` locals, vector indexing, ternaries, a default argument, a
    /// reserved word as a name, the bound `boundingRect`, and Metal's meanings of `fmod`
    /// (it truncates), `atan2`, `max3`, `saturate` and `round` (away from zero).
    @Test func metalsMathsHasMetalsMeaning() throws {
        let text = """
            #include <metal_stdlib>
            using namespace metal;

            inline float wrap(float x) { return fmod(x, 0.25h); }

            [[stitchable]] half4 mixup(float2 position, half4 color, float4 boundingRect, float strength = 0.5f) {
                const float k = M_PI_F / 4;
                float w = wrap(-(float)color.r);
                half m = max3(color.r, color.g, color.b);
                float a = atan2(color.g - 0.5h, color.b - 0.5h) / k;
                half4 out = color;
                out[0] = saturate(m * strength + w + 0.3);
                out.g = position.x < boundingRect.z / 2 ? out.g : half(a * 0.1h + 0.5);
                out.b = round(color.b * 4.0 - 2.0) / 4.0 + 0.5;
                return out;
            }
            """
        let shader = try Self.run(text, name: "mixup.metal")
        #expect(shader.source.parameters.map(\.name) == ["strength"] && shader.source.parameters[0].defaultValue == [0.5])
        let width = Double(shader.input.width)
        let most = Self.largestDifference(shader.output) { x, y in
            let c = shader.input.sample(x, y)
            let w = (-c.x).truncatingRemainder(dividingBy: 0.25)  // fmod truncates: negative stays negative
            let m = max(c.x, c.y, c.z)
            let a = atan2(c.y - 0.5, c.z - 0.5) / (Double.pi / 4)
            var out = c
            out.x = min(max(m * 0.5 + w + 0.3, 0), 1)
            out.y = x < width / 2 ? c.y : a * 0.1 + 0.5
            out.z = (c.z * 4 - 2).rounded(.toNearestOrAwayFromZero) / 4 + 0.5
            return out
        }
        #expect(most <= 2, "mixup: \(most) levels")
    }

    /// What is outside the subset, or wrong, is one line naming the file, the line and the
    /// construct — never a picture; a compile error is at the user's own line.
    @Test func metalMistakesAreOneLineAtTheirLine() throws {
        for (text, function, said) in [
            ("[[stitchable]] half4 f(float2 p, half4 c) {\n  device float *x;\n  return c;\n}", nil as String?, "m.metal:2: 'device': an address space"),
            ("#include \"other.metal\"\n[[stitchable]] half4 f(float2 p, half4 c) { return c; }", nil, "m.metal:1: #include \"other.metal\" is not read"),
            ("half4 f(float2 p, half4 c) { return c; }", nil, "no [[stitchable]] function"),
            (Self.layers, nil, "2 [[stitchable]] functions; choose one: m.metal#pixelate, m.metal#tiled"),
            (Self.layers, "pixel", "m.metal#pixel: no such [[stitchable]] function; the file has pixelate, tiled"),
            ("[[stitchable]] half4 f(float2 p, thread half4 &c) { return c; }", nil, "by reference"),
            ("[[stitchable]] float3 f(float2 p) { return float3(0); }", nil, "m.metal:1: 'f' is not a SwiftUI shader"),
            ("[[stitchable]] half4 f(float2 p, SwiftUI::Layer l, texture2d<half> key) { return g(key); }", nil, "m.metal:1: 'key' is read with key.sample(s, uv)"),
            ("half4 g(texture2d<half> key) { return half4(0); }\n[[stitchable]] half4 f(float2 p, half4 c) { return c; }", nil, "m.metal:1: 'texture2d': an image argument"),
            ("[[stitchable]] half4 f(float2 p, SwiftUI::Layer l) { return helper(l); }", nil, "'l' is read with l.sample(p)"),
        ] {
            do { _ = try ShaderSource(text, name: "m.metal", function: function); Issue.record("accepted: \(said)") } catch {
                #expect(error.message.contains(said) && !error.message.contains("\n"), "\(error.message)")
            }
        }
        let typo = "[[stitchable]]\nhalf4 warm(float2 position, half4 color,\n           float amount) {\n    half4 c = colr;\n    return c;\n}\n"
        do { _ = try ShaderProgram(try ShaderSource(typo, name: "warm.metal")); Issue.record("a typo compiled") } catch {
            #expect(error.message.hasPrefix("warm.metal:4:15: ") && error.message.contains("'colr'"), "\(error.message)")
        }
        // A missing argument without a default is one line naming it, as a built-in's.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-metal-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sepia.metal").path
        try Self.sepiaTone.write(toFile: file, atomically: true, encoding: .utf8)
        ShaderEffect.register()
        do { _ = try EffectChain(parsing: file); Issue.record("a required argument was not asked for") } catch {
            #expect(error.message.contains("parameter 'amount' is required"), "\(error.message)")
        }
        let given = try EffectChain(parsing: "\(file):amount=0.6").apply(to: try ShaderProgramTests.frame())
        let builtIn = try EffectChain(parsing: "sepia=0.6").apply(to: try ShaderProgramTests.frame())
        #expect(ShaderProgramTests.difference(ShaderProgramTests.pixels(given), ShaderProgramTests.pixels(builtIn)).largest <= 2)
    }

    /// A shader as pasted from Shadertoy: `#define`s, a `const`, a helper, `iTime`,
    /// `iResolution` and `iChannel0` (the frame, upright), in its coordinates (origin
    /// bottom-left); the output opaque.
    @Test func aShadertoyShaderRunsAsThere() throws {
        let text = """
            // Scanlines and a vignette
            #define STRENGTH 0.25
            const float lines = 240.0;

            float vignette(vec2 uv) {
                uv *= 1.0 - uv.yx;
                return pow(uv.x * uv.y * 15.0, STRENGTH);
            }

            void mainImage( out vec4 fragColor, in vec2 fragCoord )
            {
                vec2 uv = fragCoord / iResolution.xy;
                vec3 col = texture(iChannel0, uv).rgb;
                col *= 0.9 + 0.1 * sin(uv.y * lines + iTime * 4.0);
                col.r = uv.y < 0.1 ? 1.0 : col.r;   // a red band at Shadertoy's bottom
                fragColor = vec4(col * vignette(uv), 0.25);
            }
            """
        let toy = try Self.run(text, name: "toy.glsl", time: 0.75)
        #expect(toy.source.form == .shadertoy && toy.source.kind == .layer)
        let (w, h) = (Double(toy.input.width), Double(toy.input.height))
        let most = Self.largestDifference(toy.output) { x, y in
            let (u, v) = (x / w, (h - y) / h)
            var c = toy.input.sample(x, y)
            let scan = 0.9 + 0.1 * sin(v * 240 + 0.75 * 4)
            c *= scan
            if v < 0.1 { c.x = 1 }
            let (a, b) = (u * (1 - v), v * (1 - u))
            let g = pow(a * b * 15, 0.25)
            return SIMD4(c.x * g, c.y * g, c.z * g, 1)
        }
        #expect(most <= 2, "toy: \(most) levels")
        for (text, said) in [
            ("void mainImage(out vec4 f, in vec2 p) { f = texture(iChannel1, p); }", "toy.glsl:1: iChannel1: only iChannel0 (the frame) is given"),
            ("vec4 g(sampler2D s) { return vec4(0); }\nvoid mainImage(out vec4 f, in vec2 p) { f = g(iChannel0); }", "toy.glsl:2: iChannel0 is read with"),
        ] {
            do { _ = try ShaderSource(text, name: "toy.glsl"); Issue.record("accepted: \(said)") } catch {
                #expect(error.message.contains(said), "\(error.message)")
            }
        }
        // texelFetch and textureSize read the same frame, upright.
        let fetch = try Self.run("void mainImage(out vec4 f, in vec2 p) { ivec2 s = textureSize(iChannel0, 0); "
                                 + "f = texelFetch(iChannel0, ivec2(s.x - 1 - int(p.x), int(p.y)), 0); }", name: "fetch.glsl")
        let mirrored = Self.largestDifference(fetch.output) { x, y in
            var c = fetch.input.sample(w - x, y)
            c.w = 1
            return c
        }
        #expect(mirrored == 0, "a mirror through texelFetch: \(mirrored)")
    }

    /// An mpv hook of one pass with a `//!PARAM` (which Debian's libplacebo cannot read):
    /// the built-in sepia's pixels at the parameter's value; what vidfx does not run yet is
    /// one line.
    @Test func aHookWithAParameter() throws {
        let hook = """
            //!PARAM amount
            //!DESC How much sepia
            //!TYPE float
            //!MINIMUM 0.0
            //!MAXIMUM 1.0
            1.0

            //!HOOK MAIN
            //!BIND HOOKED
            //!DESC sepia
            vec4 hook() {
                vec4 c = HOOKED_tex(HOOKED_pos);
                vec3 s = clamp(vec3(dot(c.rgb, vec3(0.393, 0.769, 0.189)), dot(c.rgb, vec3(0.349, 0.686, 0.168)),
                                    dot(c.rgb, vec3(0.272, 0.534, 0.131))), 0.0, 1.0);
                return vec4(mix(c.rgb, s, amount), c.a);
            }
            """
        let shaded = try Self.run(hook, name: "sepia.hook", values: ["amount": [0.7]])
        #expect(shaded.source.form == .hook && shaded.source.parameters.map(\.name) == ["amount"])
        #expect(shaded.source.parameters[0].range == 0...1 && shaded.source.parameters[0].defaultValue == [1]
                && shaded.source.parameters[0].help == "How much sepia")
        let builtIn = try EffectChain(parsing: "sepia=0.7").apply(to: try ShaderProgramTests.frame())
        let d = ShaderProgramTests.difference(ShaderProgramTests.pixels(shaded.output), ShaderProgramTests.pixels(builtIn))
        #expect(d.largest <= 1, "\(d)")
        let pass = "//!HOOK MAIN\n//!BIND HOOKED\nvec4 hook() { return HOOKED_texOff(vec2(1.0, 0.0)); }\n"
        for (text, said) in [
            (pass + pass, "h.hook:4: a second pass"),
            ("//!HOOK MAIN\n//!BIND HOOKED\n//!SAVE BLUR\nvec4 hook() { return HOOKED_tex(HOOKED_pos); }", "h.hook:3: //!SAVE is not read yet"),
            ("//!TEXTURE LUT\n//!SIZE 4 4\n", "//!TEXTURE is not read yet"),
            ("//!HOOK CHROMA\n//!BIND HOOKED\nvec4 hook() { return vec4(0); }", "//!HOOK CHROMA"),
            ("//!PARAM x\n//!TYPE float\nnot a number\n" + pass, "the value of 'x' is not a float"),
            ("vec4 hook() { return vec4(0); }", "no pass"),
        ] {
            do { _ = try ShaderSource(text, name: "h.hook"); Issue.record("accepted: \(said)") } catch {
                #expect(error.message.contains(said), "\(error.message)")
            }
        }
        // HOOKED_texOff reads pixels away: one to the right is the frame moved left.
        let moved = try Self.run(pass, name: "h.hook")
        #expect(Self.largestDifference(moved.output) { x, y in moved.input.sample(x + 1, y) } == 0)
    }

    /// The forms' built-ins each tick: Shadertoy's iFrame, iFrameRate and iTimeDelta,
    /// mpv's frame and random (the same for the same tick, new for the next).
    @Test func theFormsBuiltInsFollowTheTick() throws {
        let toy = "void mainImage(out vec4 f, in vec2 p) { f = vec4(float(iFrame) / 255.0, iFrameRate / 255.0, iTimeDelta * 3.0, 1.0); }"
        let out = try Self.run(toy, name: "b.glsl", time: 2, tick: 60)
        #expect(Set(ShaderProgramTests.pixels(out.output)) == [0xFF3C_1E1A], "\(String(ShaderProgramTests.pixels(out.output)[0], radix: 16))")
        let hook = "//!HOOK MAIN\n//!BIND HOOKED\nvec4 hook() { return vec4(random, float(frame) / 255.0, 0.0, 1.0); }\n"
        let a = try Self.run(hook, name: "r.hook", tick: 7), b = try Self.run(hook, name: "r.hook", tick: 7), c = try Self.run(hook, name: "r.hook", tick: 8)
        let (pa, pb, pc) = (ShaderProgramTests.pixels(a.output)[0], ShaderProgramTests.pixels(b.output)[0], ShaderProgramTests.pixels(c.output)[0])
        #expect(pa == pb && pa != pc && pa >> 8 & 255 == 7 && pc >> 8 & 255 == 8, "\(pa) \(pb) \(pc)")
    }

    /// A small key image of distinct pixels.
    static func key() -> Frame {
        var key = Frame(width: 7, height: 3)
        let stride = key.bytesPerRow / 4
        key.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<3 { for x in 0..<7 { p[y * stride + x] = 0xFF00_0000 | UInt32(x * 36) << 16 | UInt32(y * 120) << 8 | UInt32((x * 7 + y * 50) % 256) } }
        }
        return key
    }

    /// Image parameters: `uniform sampler2D key;` read with texture (bilinear, uv in 0…1
    /// from the image's top-left, clamped), texelFetch and textureSize; a Metal
    /// `texture2d<half>` read with a sampler, its size bound by name (`keySize` beside
    /// `keyTexture`): both against Double.
    @Test func imageParametersReadTheirImage() throws {
        let key = Self.key()
        let image = Picture(key)
        let images = try ShaderImages([key], names: ["key"])
        let glsl = """
            uniform sampler2D key; // the key
            uniform float amount; // range 0…1; default 1
            vec4 effect(vec2 position, vec4 color) {
                ivec2 s = textureSize(key, 0);
                vec4 corner = texelFetch(key, ivec2(s.x - 1, 0), 0);
                return mix(color, texture(key, position / size), amount) * 0.5 + corner * 0.5;
            }
            """
        let source = try ShaderSource(glsl, name: "key.glsl")
        #expect(source.parameters.map(\.kind) == [.sampler2D, .float] && source.parameters[0].isRequired)
        let program = try ShaderProgram(source)
        let input = try ShaderProgramTests.frame()
        var out = input
        try program.run(&out, time: 0, tick: 0, images: images)
        let (w, h) = (Double(input.width), Double(input.height))
        let corner = image.texel(6, 0)
        let most = Self.largestDifference(out) { x, y in image.sample(x / w * 7, y / h * 3) * 0.5 + corner * 0.5 }
        #expect(most <= 1, "texture(key, uv): \(most) levels")
        do { try program.run(&out, time: 0, tick: 0); Issue.record("ran without its image") } catch {
            #expect(error.message.contains("reads 1 image(s); 0 given"), "\(error.message)")
        }

        let metal = """
            #include <metal_stdlib>
            #include <SwiftUI/SwiftUI.h>
            using namespace metal;

            [[ stitchable ]]
            half4 recolour(float2 position, SwiftUI::Layer mainLayer, float2 layerSize, texture2d<half> keyTexture [[ texture(1) ]], float2 keySize) {
                constexpr sampler s(coord::normalized, address::clamp_to_edge, filter::linear);
                half4 c = mainLayer.sample(position);
                half l = dot(c.rgb, half3(0.299h, 0.587h, 0.114h));
                half4 k = keyTexture.sample(s, float2(l, position.y / layerSize.y));
                return half4(k.rgb, c.a) * (keySize.x / 7.0) * (keyTexture.get_height() == 3 ? 1.0 : 0.0);
            }
            """
        let recolour = try ShaderSource(metal, name: "recolour.metal")
        #expect(recolour.parameters.map(\.name) == ["keyTexture"] && recolour.kind == .layer, "layerSize and keySize are bound")
        var shaded = input
        try ShaderProgram(recolour).run(&shaded, time: 0, tick: 0, images: images)
        let frame = Picture(input)
        let metalMost = Self.largestDifference(shaded) { x, y in
            let c = frame.sample(x, y)
            let l = c.x * 0.299 + c.y * 0.587 + c.z * 0.114
            var k = image.sample(l * 7, y / h * 3)
            k.w = c.w
            return k
        }
        #expect(metalMost <= 2, "texture2d.sample: \(metalMost) levels")
    }

    /// `#pragma vidfx linear`: the shader's colours in linear light, as a built-in's
    /// `space=linear` — half the light is the built-in exposure's -1 stop in linear light,
    /// within one level, where the same shader in the encoded values is not.
    @Test func linearLightOnRequest() throws {
        let half = "vec4 effect(vec2 p, vec4 c) { return vec4(c.rgb * 0.5, c.a); }"
        let linear = try Self.run("#pragma vidfx linear\n" + half, name: "half.glsl")
        #expect(linear.source.isLinear)
        let encoded = try Self.run(half, name: "half.glsl")
        let builtIn = try EffectChain(parsing: "exposure=-1:space=linear").apply(to: try ShaderProgramTests.frame())
        let d = ShaderProgramTests.difference(ShaderProgramTests.pixels(linear.output), ShaderProgramTests.pixels(builtIn))
        #expect(d.largest <= 1, "linear: \(d)")
        #expect(ShaderProgramTests.difference(ShaderProgramTests.pixels(encoded.output), ShaderProgramTests.pixels(builtIn)).largest > 10)
        do { _ = try ShaderSource("#pragma vidfx gamma\n" + half, name: "half.glsl"); Issue.record("an unknown pragma was read") } catch {
            #expect(error.message.contains("half.glsl:1: ") && error.message.contains("#pragma vidfx linear"), "\(error.message)")
        }
    }
}
