import Effects
import Foundation
import FrameCore
import FrameSource
@testable import Shaders
import TestSupport
import Testing

/// Users' shaders on Vulkan compute (issue 66, the engine): each kind against vidfx's own
/// built-in effect or a formula in Double, the compiler's messages at the user's lines,
/// the parameter comments, and the one line that names what to install. CI runs them on
/// Mesa's lavapipe (scripts/setup.sh installs it).
@Suite struct ShaderProgramTests {
    static let testmedia = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("testmedia")

    /// A decoded frame of real footage.
    static func frame(_ clip: String = "crowd.jpg") throws -> Frame {
        let source = try FrameSource(testmedia.appendingPathComponent(clip).path)
        defer { source.close() }
        return try #require(try source.nextFrame())
    }

    static func pixels(_ f: Frame) -> [UInt32] {
        f.withUnsafeBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self), stride = f.bytesPerRow / 4
            return (0..<f.height).flatMap { y in (0..<f.width).map { p[y * stride + $0] } }
        }
    }

    /// The largest difference of any channel, and how many channels differ at all.
    static func difference(_ a: [UInt32], _ b: [UInt32]) -> (largest: Int, differing: Int) {
        var largest = 0, differing = 0
        for (x, y) in zip(a, b) where x != y {
            for shift in stride(from: 0, to: 32, by: 8) {
                let d = abs(Int(x >> UInt32(shift) & 0xFF) - Int(y >> UInt32(shift) & 0xFF))
                if d > 0 { differing += 1; largest = max(largest, d) }
            }
        }
        return (largest, differing)
    }

    /// The W3C sepia matrix as vidfx's sepia is documented (effects-spec), in GLSL.
    static let sepia = """
        uniform float amount; // range 0…1; default 1; How much sepia.
        vec4 effect(vec2 position, vec4 color) {
            vec3 s = clamp(vec3(dot(color.rgb, vec3(0.393, 0.769, 0.189)),
                                dot(color.rgb, vec3(0.349, 0.686, 0.168)),
                                dot(color.rgb, vec3(0.272, 0.534, 0.131))), 0.0, 1.0);
            return vec4(mix(color.rgb, s, amount), color.a);
        }
        """

    /// A colour shader gives vidfx's built-in sepia's pixels within one level, at the
    /// default and at a parameter given.
    @Test func aColourShaderIsTheBuiltInSepia() throws {
        let source = try ShaderSource(Self.sepia, name: "sepia.glsl")
        #expect(source.kind == .color && source.parameters.map(\.name) == ["amount"])
        #expect(source.parameters[0].range == 0...1 && source.parameters[0].defaultValue == [1] && source.parameters[0].help == "How much sepia.")
        let program = try ShaderProgram(source)
        let input = try Self.frame()
        for amount in [1.0, 0.6] {
            var shaded = input
            try program.run(&shaded, time: 0, tick: 0, values: ["amount": [amount]])
            let builtIn = try EffectChain(parsing: "sepia=\(amount)").apply(to: input)
            let d = Self.difference(Self.pixels(shaded), Self.pixels(builtIn))
            print("sepia \(amount) on \(try ShaderProgram.device().get()): largest difference \(d.largest), \(d.differing) channels differ")
            #expect(d.largest <= 1, "amount \(amount): \(d)")
        }
    }

    /// A layer shader reads the frame anywhere: `source(position)` is the pixel itself,
    /// exactly, and a mosaic reading each block's top-left pixel is the built-in pixelate.
    @Test func aLayerShaderIsTheBuiltInPixelate() throws {
        let identity = try ShaderProgram(try ShaderSource("vec4 effect(vec2 position) { return source(position); }", name: "same.glsl"))
        let input = try Self.frame()
        var same = input
        try identity.run(&same, time: 0, tick: 0)
        #expect(Self.pixels(same) == Self.pixels(input), "source(position) is the pixel")
        let mosaic = """
            uniform float block; // range 1…4096; default 8
            vec4 effect(vec2 position) {
                return source(floor((position - 0.5) / block) * block + 0.5);
            }
            """
        let program = try ShaderProgram(try ShaderSource(mosaic, name: "mosaic.glsl"))
        var shaded = input
        try program.run(&shaded, time: 0, tick: 0, values: ["block": [12]])
        let builtIn = try EffectChain(parsing: "pixelate=12").apply(to: input)
        let d = Self.difference(Self.pixels(shaded), Self.pixels(builtIn))
        #expect(d.largest == 0, "\(d)")
    }

    /// Every shader of the repository describes itself with an example, as a built-in does
    /// (`vidfx effects FILE` prints it), and the example parses and runs.
    @Test func everyShaderOfTheRepositoryHasAWorkingExample() throws {
        ShaderEffect.register()
        let folder = Self.testmedia.deletingLastPathComponent().appendingPathComponent("shaders")
        var heads: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where ShaderEffect.isShaderFile(name) {
            let path = folder.appendingPathComponent(name).path
            if name.hasSuffix(".metal") {
                // One of the file's functions chosen, to read them all.
                let source = try ShaderSource(try String(contentsOfFile: path, encoding: .utf8), name: name, function: "sepiaTone")
                heads += source.functions.map { path + "#" + $0 }
            } else {
                heads.append(path)
            }
        }
        #expect(heads.count >= 16, "\(heads)")
        let input = try Self.frame()
        for head in heads {
            let descriptor = try ShaderEffect.describe(head).descriptor
            guard let example = descriptor.example else {
                // Only a shader that must be given an image (lookup.glsl's key) has none.
                #expect(descriptor.parameters.contains { $0.type.name == "file" && $0.defaultValue == nil }, "\(head) has no example")
                continue
            }
            #expect(example.hasPrefix(head))
            let chain = try EffectChain(parsing: example)
            _ = chain.apply(to: input, time: 0.5)
            #expect(chain.failure == nil, "\(example): \(chain.failure ?? "")")
        }
    }

    /// Frames of every shape: the device takes four pixels an invocation over the frame as
    /// one run, so a width that is no multiple of four (rows that end mid-block) and rows
    /// padded in memory (a stride wider than the width) must still give each pixel its own
    /// colour, position and mirror image, exactly.
    @Test func framesOfEveryShapeKeepEachPixelInPlace() throws {
        let identity = try ShaderProgram(try ShaderSource("vec4 effect(vec2 p, vec4 c) { return c; }", name: "same.glsl"))
        let mirror = try ShaderProgram(try ShaderSource("vec2 effect(vec2 p) { return vec2(size.x - p.x, p.y); }", name: "mirror.glsl"))
        let place = try ShaderProgram(try ShaderSource(
            "vec4 effect(vec2 p, vec4 c) { return vec4((p.x - 0.5) / 255.0, (p.y - 0.5) / 255.0, c.b, 1.0); }", name: "place.glsl"))
        var rng = SeededGenerator("framesOfEveryShapeKeepEachPixelInPlace", seed: 66)
        for (w, h) in [(1, 1), (3, 5), (13, 7), (17, 3), (250, 9), (4, 4)] {
            var input = Frame(width: w, height: h)
            let stride = input.bytesPerRow / 4
            input.withUnsafeMutableBytes { b in
                let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
                for i in 0..<(stride * h) { p[i] = UInt32.random(in: 0...UInt32.max, using: &rng) }
            }
            let a = Self.pixels(input)
            var same = input
            try identity.run(&same, time: 0, tick: 0)
            #expect(Self.pixels(same) == a, "\(w)x\(h) (stride \(stride)): the colour kind moved a pixel")
            var flipped = input
            try mirror.run(&flipped, time: 0, tick: 0)
            let b = Self.pixels(flipped)
            #expect((0..<h).allSatisfy { y in (0..<w).allSatisfy { x in b[y * w + x] == a[y * w + (w - 1 - x)] } }, "\(w)x\(h): mirror")
            var placed = input
            try place.run(&placed, time: 0, tick: 0)
            let c = Self.pixels(placed)
            var expected: [UInt32] = []
            for y in 0..<h {
                for x in 0..<w {
                    let red = UInt32(x % 256) << 16, green = UInt32(y % 256) << 8
                    expected.append(0xFF00_0000 | red | green | (a[y * w + x] & 0xFF))
                }
            }
            #expect(c == expected, "\(w)x\(h): each pixel's position")
        }
    }

    /// A distortion returns where to read: a mirror about the vertical centre is the frame
    /// flipped, pixel for pixel; `size`, `time` and `frame` are the built-ins given.
    @Test func aDistortionAndTheBuiltIns() throws {
        let mirror = try ShaderProgram(try ShaderSource("vec2 effect(vec2 position) { return vec2(size.x - position.x, position.y); }", name: "mirror.glsl"))
        let input = try Self.frame()
        var flipped = input
        try mirror.run(&flipped, time: 0, tick: 0)
        let (a, b) = (Self.pixels(input), Self.pixels(flipped))
        let w = input.width
        #expect((0..<input.height).allSatisfy { y in (0..<w).allSatisfy { x in b[y * w + x] == a[y * w + (w - 1 - x)] } })
        // time and frame reach the shader: a grey of time/10 and frame/255 in red.
        let clock = try ShaderProgram(try ShaderSource("vec4 effect(vec2 p, vec4 c) { return vec4(float(frame) / 255.0, time / 10.0, 0.0, 1.0); }", name: "clock.glsl"))
        var f = Frame(width: 4, height: 3)
        try clock.run(&f, time: 5, tick: 51)
        #expect(Set(Self.pixels(f)) == [0xFF33_8000], "\(String(Self.pixels(f)[0], radix: 16))")
    }

    /// A shader that does not compile is one line at the user's own line (the code vidfx
    /// puts around it does not move it); other mistakes are lines naming file and line.
    @Test func errorsAreAtTheUsersLines() throws {
        let typo = "uniform float amount;\n\nvec4 effect(vec2 position, vec4 color) {\n    return colr * amount;\n}\n"
        do {
            _ = try ShaderProgram(try ShaderSource(typo, name: "wave.glsl"))
            Issue.record("a typo compiled")
        } catch {
            // Line and column: `colr` is the 12th character of line 4.
            #expect(error.message.hasPrefix("wave.glsl:4:12: ") && error.message.contains("'colr'") && !error.message.contains("\n"), "\(error.message)")
        }
        for (text, said) in [
            ("vec4 nothing(vec2 p) { return vec4(1); }", "no effect function"),
            ("#include \"x.glsl\"\nvec4 effect(vec2 p) { return source(p); }", "sh.glsl:1: #include \"x.glsl\" is not read"),
            ("uniform mat4 m;\nvec4 effect(vec2 p) { return source(p); }", "sh.glsl:1: 'mat4': a parameter is one of"),
            ("uniform float time;\nvec4 effect(vec2 p) { return source(p); }", "'time' is a name vidfx gives"),
            ("uniform float a; // range 0…1; default 2\nvec4 effect(vec2 p) { return source(p); }", "outside its range"),
            ("uniform vec2 c; // default 0.5\nvec4 effect(vec2 p) { return source(p); }", "default '0.5' is not a vec2"),
            (String(repeating: " ", count: 70_000), "a shader may have up to 64 KiB"),
        ] {
            do { _ = try ShaderSource(text, name: "sh.glsl"); Issue.record("accepted: \(said)") } catch {
                #expect(error.message.contains(said), "\(error.message)")
            }
        }
        let colour = try ShaderSource("uniform vec4 tint; // default #ff8800\nuniform vec2 centre; // default 0.5,0.25\nvec4 effect(vec2 p, vec4 c) { return tint; }", name: "c.glsl")
        #expect(colour.parameters[0].isColor && colour.parameters[0].defaultValue == [1, 136.0 / 255, 0, 1])
        #expect(colour.parameters[1].defaultValue == [0.5, 0.25] && colour.parameters[1].offset == 64, "std140: after the vec4 at 48 (the built-ins take 48 bytes)")
    }

    /// Every loop asks the halt word, and only loops are touched: the text keeps its
    /// lines, and each form of loop takes the call where its condition is.
    @Test func loopsAskWhetherTheRunIsHalted() {
        for (text, guarded) in [
            ("for (int i = 0; i < n; i++) x++;", "for (int i = 0; ( i < n) && G; i++) x++;"),
            // Counts to a constant end by themselves (and are unrolled): left as they are,
            // unless the body writes the count or it runs the wrong way.
            ("for (int k = -4; k <= 4; k++) s += f(k);", "for (int k = -4; k <= 4; k++) s += f(k);"),
            ("for (uint i = 0u; i < 5u; i++) { x = i; }", "for (uint i = 0u; i < 5u; i++) { x = i; }"),
            ("for (int i = 8; i > 0; i -= 2) {}", "for (int i = 8; i > 0; i -= 2) {}"),
            ("for (int i = 0; i < 60000; i++) {}", "for (int i = 0; ( i < 60000) && G; i++) {}"),
            ("for (int i = 0; i < 0x100; i++) {}", "for (int i = 0; ( i < 0x100) && G; i++) {}"),
            ("for (int i = 0; i < 5; i++) { i = 0; }", "for (int i = 0; ( i < 5) && G; i++) { i = 0; }"),
            ("for (int i = 0; i < 5; i++) --i;", "for (int i = 0; ( i < 5) && G; i++) --i;"),
            ("for (int i = 0; i < 5; i--) {}", "for (int i = 0; ( i < 5) && G; i--) {}"),
            ("for(;;){}", "for(; G;){}"),
            ("for (int i = 0;\n  i < f(a, b[2]);\n  i++) {}", "for (int i = 0; (\n  i < f(a, b[2])) && G;\n  i++) {}"),
            ("while (a(b)) {}", "while ((a(b)) && G) {}"),
            ("do { x++; } while (x < 3);", "do { x++; } while ((x < 3) && G);"),
            ("// while (x)\nfloat fortune = whiles(1.0);", "// while (x)\nfloat fortune = whiles(1.0);"),
        ] {
            var tokens = ShaderTokens(text)
            tokens.guardLoops(with: "G")
            #expect(tokens.text == guarded, "\(text)")
        }
    }

    /// A shader in an endless loop is halted at the limit with one line, and the same
    /// program then renders the next frame: the device is not held by the loop for good
    /// (what the studio needs of a shader typed into its page).
    @Test func anEndlessLoopIsHaltedAndTheProgramRunsOn() throws {
        // Lavapipe ends a loop after 65,535 turns by itself, so the runaway here is a long
        // body: 60,000 turns of 1,024 sines a pixel, minutes here. With the halt it ends
        // soon after its limit of 1 s; without it the run outlives the shim's five seconds
        // of grace and the program is lost (the second run below then fails). The outer
        // loop must end too, not only the inner one.
        let text = """
            #define STEP x = fract(sin(x * 12.9898 + 1.0) * 43758.5453);
            #define S8 STEP STEP STEP STEP STEP STEP STEP STEP
            #define S64 S8 S8 S8 S8 S8 S8 S8 S8
            #define S512 S64 S64 S64 S64 S64 S64 S64 S64
            uniform int turns;
            vec4 effect(vec2 p, vec4 c) {
                float x = c.r;
                int j = 0;
                while (j < turns) {
                    for (int i = 0; i < 2; i++) { S512 }
                    j++;
                }
                int k = 0;
                do { k++; } while (k < 2);
                return vec4(x, c.g, float(k) / 255.0, 1.0);
            }
            """
        let program = try ShaderProgram(try ShaderSource(text, name: "forever.glsl"))
        var input = Frame(width: 64, height: 48)
        input.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        var output = Frame(width: 64, height: 48)
        let stride = output.bytesPerRow / 4
        func run(forever: Bool) throws {
            try input.withUnsafeBytes { source in
                try output.withUnsafeMutableBytes { destination in
                    try ShaderProgram.run([.init(program, values: ["turns": [forever ? 60000 : 2]])],
                                          source: source.baseAddress!.assumingMemoryBound(to: UInt32.self), sourceStride: input.bytesPerRow / 4,
                                          destination: destination.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                          destinationStride: stride, width: 64, height: 48, time: 0, tick: 0,
                                          limit: .seconds(1))
                }
            }
        }
        do {
            try run(forever: true)
            Issue.record("an endless loop returned")
        } catch let error as ShaderError {
            #expect(error.message == "forever.glsl: the shader ran for more than 1 s on one frame", "\(error.message)")
        }
        // The same program runs on: the pixels of a program that never ran over.
        try run(forever: false)
        let after = ShaderProgramTests.pixels(output)
        var fresh = output
        let again = try ShaderProgram(try ShaderSource(text + "\n", name: "fresh.glsl"))
        try input.withUnsafeBytes { source in
            try fresh.withUnsafeMutableBytes { destination in
                try ShaderProgram.run([.init(again, values: ["turns": [2]])], source: source.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                      sourceStride: stride, destination: destination.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                      destinationStride: stride, width: 64, height: 48, time: 0, tick: 0)
            }
        }
        #expect(after == ShaderProgramTests.pixels(fresh))
        #expect(Set(after.map { $0 & 255 }) == [2], "the do-while ran twice")
        #expect(program.failure == nil)
    }

    /// Without Vulkan, one line names the packages to install (a stand-in library path, in
    /// a process of its own: the loader is loaded once a process); without the compiler,
    /// one line names its package.
    @Test func aMissingLibraryIsOneLineNamingThePackage() async throws {
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: CommandLine.arguments[0]),
                                                   ["--testing-library", "swift-testing", "--filter", "ShaderProgramTests/deviceLine"],
                                                   environment: ProcessInfo.processInfo.environment.merging(
                                                       ["VIDFX_VULKAN_LIBRARY": "/nonexistent/libvulkan.so.1", "VIDFX_SHADER_EXPECT_MISSING": "1"]) { $1 })
        #expect(outcome.status == 0, "\(outcome.stderrText.suffix(2000)) \(String(decoding: outcome.stdout.suffix(2000), as: UTF8.self))")
        let said = String(decoding: outcome.stdout, as: UTF8.self) + outcome.stderrText
        #expect(said.contains("deviceLine") && said.contains("passed"), "the test ran in that process: \(said.suffix(500))")
    }

    /// Run by the test above in a process of its own: what the device line says.
    @Test func deviceLine() throws {
        switch ShaderProgram.device() {
        case .success(let name):
            #expect(ProcessInfo.processInfo.environment["VIDFX_SHADER_EXPECT_MISSING"] == nil, "a stand-in path was not used")
            print("shaders run on \(name)")
        case .failure(let error):
            #expect(ProcessInfo.processInfo.environment["VIDFX_SHADER_EXPECT_MISSING"] == "1", "\(error.message)")
            #expect(error.message.contains("/nonexistent/libvulkan.so.1") && error.message.hasSuffix("apt-get install libvulkan1 mesa-vulkan-drivers"),
                    "\(error.message)")
        }
    }
}
