import Foundation
import TestSupport
import Testing

/// Shader files as effects of the command line (issue 66): `-e ./shaders/sepia.glsl=0.8`
/// is an effect whose parameters come from the file, with keyframes, did-you-mean and the
/// compiler's messages at the user's lines; the repository's shaders give the built-ins'
/// pixels. Run on Mesa's lavapipe in CI.
@Suite struct ShaderCommandTests {
    /// The frames `dump` writes as raw BGRA, for `chain`.
    static func frames(_ chain: String, at times: String = "0.5,1.5,2.9", clip: String = "h264-30fps.mp4") async throws -> Data {
        let scratch = try ScratchDirectory("vidfx-shader-dump")
        let out = scratch.path("f.bgra")
        let r = try await CLI.run(["dump", CLI.media(clip), "--at", times, "-e", chain, "--format", "bgra", "-o", out, "-q"])
        #expect(r.status == 0, "\(chain): \(r.stderr)")
        return FileManager.default.contents(atPath: out) ?? Data()
    }

    static func largestDifference(_ a: Data, _ b: Data) -> Int {
        guard a.count == b.count, !a.isEmpty else { return 256 }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// A shader is compiled once, not once a run: the second run takes the program kept in
    /// the user's cache (`$XDG_CACHE_HOME/vidfx/shaders`) and gives the same bytes; an
    /// edited file is compiled again. The compiler is a stand-in that counts its runs.
    @Test func aShaderIsCompiledOnceForEveryRun() async throws {
        let scratch = try ScratchDirectory("vidfx-shader-cache-cli")
        let log = scratch.path("runs.log"), compiler = scratch.path("glslangValidator")
        try "#!/bin/sh\necho run >> '\(log)'\nexec /usr/bin/glslangValidator \"$@\"\n".write(toFile: compiler, atomically: false, encoding: .utf8)
        #expect(chmod(compiler, 0o755) == 0)
        let shader = scratch.path("warm.glsl")
        try "uniform float amount; // default 0.5\nvec4 effect(vec2 p, vec4 c) { return vec4(c.r, c.g * amount, c.b, c.a); }\n"
            .write(toFile: shader, atomically: false, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(["VIDFX_GLSLANG": compiler, "XDG_CACHE_HOME": scratch.path("cache")]) { $1 }
        func run(_ out: String) async throws -> Data {
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", shader, "--format", "bgra", "-o", scratch.path(out), "-q"],
                                      environment: environment)
            #expect(r.status == 0, "\(r.stderr)")
            return FileManager.default.contents(atPath: scratch.path(out)) ?? Data()
        }
        func runs() -> Int { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count }
        let first = try await run("1.bgra")
        #expect(runs() == 1)
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path("cache/vidfx/shaders"))) ?? []
        #expect(kept.count == 1 && kept[0].hasSuffix(".spv"), "\(kept)")
        let second = try await run("2.bgra")
        #expect(runs() == 1, "compiled again though kept")
        #expect(!first.isEmpty && first == second)
        try "uniform float amount; // default 0.5\nvec4 effect(vec2 p, vec4 c) { return vec4(c.r * amount, c.g, c.b, c.a); }\n"
            .write(toFile: shader, atomically: false, encoding: .utf8)
        let edited = try await run("3.bgra")
        #expect(runs() == 2 && edited != first, "an edited shader is compiled anew")
    }

    /// The repository's shaders — the article's ten effects as vidfx GLSL — against the
    /// built-ins, through `dump` at three times (oldtimes changes with the time): exactly
    /// where the built-in is integer maths, within one level where it rounds in floats.
    @Test func theRepositorysShadersAreTheBuiltIns() async throws {
        for (shader, builtIn, most) in [("./shaders/sepia.glsl=0.8", "sepia=0.8", 1), ("./shaders/sepia.glsl", "sepia", 1),
                                        ("./shaders/pixelate.glsl=12", "pixelate=12", 0),
                                        ("./shaders/caleido.glsl", "caleido", 0), ("./shaders/caleido.glsl:right=1:bottom=1", "caleido:quadrant=bottomRight", 0),
                                        ("./shaders/tiled.glsl", "tiled", 0), ("./shaders/tiled.glsl=3", "tiled=3", 0),
                                        ("./shaders/posterize.glsl", "posterize", 1), ("./shaders/posterize.glsl=3.5", "posterize=3.5", 1),
                                        ("./shaders/threshold.glsl", "threshold", 0), ("./shaders/threshold.glsl=0.25", "threshold=0.25", 0),
                                        ("./shaders/solarize.glsl", "solarize", 0),
                                        ("./shaders/solarize.glsl:threshold=0.25:intensity=0.5", "solarize:threshold=0.25:intensity=0.5", 1),
                                        ("./shaders/warhol.glsl", "warhol", 0), ("./shaders/warhol.glsl=0.6", "warhol=0.6", 1),
                                        ("./shaders/zoomblur.glsl", "zoomblur", 1),
                                        ("./shaders/zoomblur.glsl:amount=3:x=0.3:y=0.6", "zoomblur:amount=3:x=0.3:y=0.6", 1),
                                        ("./shaders/oldtimes.glsl", "oldtimes", 1),
                                        ("./shaders/oldtimes.glsl:seed=7:grain=0.2:amount=0.7", "oldtimes:seed=7:grain=0.2:amount=0.7", 1)] {
            let a = try await Self.frames(shader), b = try await Self.frames(builtIn)
            #expect(a.count == 320 * 240 * 4 * 3 && Self.largestDifference(a, b) <= most, "\(shader): \(Self.largestDifference(a, b))")
        }
    }

    /// The key image of an iOS lookup (GPUImage's 512×512 PNG) read by shaders/lookup.glsl
    /// through an image parameter gives the built-in solarize's pixels with that key.
    @Test func aKeyImageThroughAnImageParameterIsTheBuiltInLookup() async throws {
        let scratch = try ScratchDirectory("vidfx-shader-key")
        // A key that maps each colour far from itself: (1 − r, g², (r + b) / 2).
        var rgb = [UInt8](repeating: 0, count: 512 * 512 * 3)
        for ty in 0..<8 { for tx in 0..<8 { for y in 0..<64 { for x in 0..<64 {
            let (r, g, b) = (Double(x) / 63, Double(y) / 63, Double(ty * 8 + tx) / 63)
            let i = ((ty * 64 + y) * 512 + tx * 64 + x) * 3
            rgb[i] = UInt8((1 - r) * 255 + 0.5); rgb[i + 1] = UInt8(g * g * 255 + 0.5); rgb[i + 2] = UInt8((r + b) / 2 * 255 + 0.5)
        } } } }
        try Data(rgb).write(to: URL(fileURLWithPath: scratch.path("key.rgb")))
        let made = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                ["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "512x512", "-i", scratch.path("key.rgb"),
                                                 "-y", scratch.path("key.png")])
        #expect(made.status == 0, "\(made.stderrText)")
        for intensity in ["1", "0.6"] {
            let a = try await Self.frames("./shaders/lookup.glsl:key=\(scratch.path("key.png")):intensity=\(intensity)")
            let b = try await Self.frames("solarize:lut=\(scratch.path("key.png")):intensity=\(intensity)")
            #expect(a.count == 320 * 240 * 4 * 3 && Self.largestDifference(a, b) <= 1, "intensity \(intensity): \(Self.largestDifference(a, b))")
        }
    }

    /// Keyframes on a shader's parameter are the built-in's at each tick, and `enable=`
    /// ranges hold; shaders and built-ins mix in one chain.
    @Test func keyframesAndRangesOnAShader() async throws {
        let times = "0,0.5,1,1.5,2,2.9"
        let a = try await Self.frames("./shaders/sepia.glsl:amount=0@0,1@2s,vignette,./shaders/pixelate.glsl:block=6:enable=1-2", at: times)
        let b = try await Self.frames("sepia:amount=0@0,1@2s,vignette,pixelate:size=6:enable=1-2", at: times)
        #expect(a.count == 320 * 240 * 4 * 6 && Self.largestDifference(a, b) <= 1, "\(Self.largestDifference(a, b))")
    }

    /// `vidfx effects FILE` prints the shader's table from its declarations; a misspelt
    /// parameter is refused with did-you-mean; a value out of range names the range.
    @Test func parametersAreTheFilesDeclarations() async throws {
        let table = try await CLI.run(["effects", "shaders/wave.glsl"])
        #expect(table.status == 0, "\(table.stderr)")
        let text = String(decoding: table.stdout, as: UTF8.self)
        #expect(text.contains("shaders/wave.glsl (distortion shader, stylize)"), "\(text)")
        #expect(text.contains("amplitude   float  default 8") && text.contains("0…200") && text.contains("How far the rows move"), "\(text)")
        let scratch = try ScratchDirectory("vidfx-shader-refusals")
        // A whole number's example is written whole (1000000, not 1e+06), and a default the
        // chain could not be given is refused.
        try "uniform int count; // range 0…1000000; default 1000000\nvec4 effect(vec2 p, vec4 c) { return c; }\n"
            .write(toFile: scratch.path("count.glsl"), atomically: false, encoding: .utf8)
        let counted = try await CLI.run(["effects", scratch.path("count.glsl")])
        #expect(String(decoding: counted.stdout, as: UTF8.self).contains("count.glsl:count=1000000\""), "\(counted.stderr)")
        try "uniform int count; // default 100000000\nvec4 effect(vec2 p, vec4 c) { return c; }\n"
            .write(toFile: scratch.path("huge.glsl"), atomically: false, encoding: .utf8)
        #expect(mkfifo(scratch.path("pipe.glsl"), 0o600) == 0)
        for (chain, said) in [(scratch.path("pipe.glsl"), "not a regular file"),("./shaders/sepia.glsl:amout=0.5", "unknown parameter 'amout' (did you mean 'amount'?)"),
                              ("./shaders/sepia.glsl=2", "out of range"),
                              ("./shaders/nothere.glsl", "./shaders/nothere.glsl: cannot read the shader"),
                              (scratch.path("huge.glsl"), "'count': 1e+08 is larger than a parameter may be (±1000000)")] {
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", chain, "-o", scratch.path("x.mp4")])
            #expect(r.status != 0 && r.stderr.contains(said), "\(chain): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("x.mp4")))
        }
    }

    /// `--device cpu` runs on lavapipe with auto's pixels (here auto is lavapipe); `--device
    /// gpu` where the loader has no GPU is one line saying so, before any output.
    @Test func theDeviceIsChosenByType() async throws {
        let auto = try await Self.frames("./shaders/wave.glsl")
        let cpu = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "0.5,1.5,2.9", "-e", "./shaders/wave.glsl", "--device", "cpu",
                                     "--format", "bgra", "-o", "-", "-q"])
        #expect(cpu.status == 0 && cpu.stdout == auto, "\(cpu.stderr)")
        let scratch = try ScratchDirectory("vidfx-shader-gpu")
        let gpu = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", "./shaders/wave.glsl", "--device", "gpu",
                                     "-o", scratch.path("out")])
        // This machine kind has no GPU; one with a GPU renders.
        #expect(gpu.status == 0 || (gpu.status == 2 && gpu.stderr.split(separator: "\n").count == 1
                                    && gpu.stderr.contains("--device gpu: the Vulkan loader has no GPU here")), "\(gpu.status): \(gpu.stderr)")
        #expect(gpu.status == 0 || !FileManager.default.fileExists(atPath: scratch.path("out")))
    }

    /// A shader that does not compile: one line at the user's own line, before any
    /// output is opened.
    @Test func aCompileErrorIsAtTheUsersLine() async throws {
        let scratch = try ScratchDirectory("vidfx-shader-typo")
        let file = scratch.path("typo.glsl")
        try "uniform float amount; // default 1\n\nvec4 effect(vec2 position, vec4 color) {\n    return colr * amount;\n}\n"
            .write(toFile: file, atomically: false, encoding: .utf8)
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", file, "-o", scratch.path("x.mp4")])
        #expect(r.status == 2, "\(r.status): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("\(file):4:12: ") && lines[0].contains("'colr'"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.mp4")))
    }

    /// A shader that keeps each pixel busy for minutes (lavapipe ends any one loop after
    /// 65,535 turns, so the work is in the body).
    static let slow = """
        #define STEP x = fract(x * 1.0001 + 0.1);
        #define S8 STEP STEP STEP STEP STEP STEP STEP STEP
        #define S64 S8 S8 S8 S8 S8 S8 S8 S8
        vec4 effect(vec2 position, vec4 color) {
            float x = color.r;
            for (int i = 0; i < 60000; i++) { S64 S64 S64 S64 }
            return vec4(x);
        }
        """

    /// A frame past the 10-second limit ends the render with one line, exit 1, nothing
    /// written (the frame left as it came is not written either).
    @Test func aFramePastItsLimitEndsTheRender() async throws {
        let scratch = try ScratchDirectory("vidfx-shader-limit")
        try Self.slow.write(toFile: scratch.path("slow.glsl"), atomically: false, encoding: .utf8)
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--frames", "3", "-e", scratch.path("slow.glsl"), "-o", scratch.path("out")])
        #expect(r.status == 1, "\(r.status): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("slow.glsl: the shader ran for more than 10 s on one frame"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }

    /// Ctrl-C while a frame is on the device stops vidfx as Ctrl-C does (130, nothing
    /// half-written): the wait for the shader is cut, not sat out to its limit (here 600 s,
    /// which the hang limit would end first).
    @Test func ctrlCStopsASlowShader() async throws {
        let scratch = try ScratchDirectory("vidfx-shader-ctrlc")
        try Self.slow.write(toFile: scratch.path("slow.glsl"), atomically: false, encoding: .utf8)
        let p = Process()
        p.executableURL = CLI.executable
        p.currentDirectoryURL = CLI.directory
        p.arguments = ["apply", CLI.media("h264-30fps.mp4"), "-e", scratch.path("slow.glsl"), "-o", scratch.path("out.mp4")]
        let errors = Pipe()
        p.standardError = errors
        // The limit out of the way: on a loaded machine (CI runs every suite at once under
        // ASan) ten seconds of wall time can pass before the frame has had two of CPU.
        p.environment = ProcessInfo.processInfo.environment.merging(["VIDFX_SHADER_FRAME_LIMIT": "600"]) { $1 }
        let running = try Subprocess.Running(p, hangLimit: .seconds(300))
        // The shader is running once the process has spent two seconds of CPU: compiling
        // happens in glslang's process, and decoding one small frame takes far less.
        func cpuTicks() -> Int {
            guard let stat = try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return 0 }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
        let deadline = ContinuousClock.now + .seconds(120)  // a hang limit
        while ContinuousClock.now < deadline, running.isRunning, cpuTicks() < 200 { try await Task.sleep(for: .milliseconds(50)) }
        running.signal(SIGINT)
        let (status, _) = await running.exit()
        let said = String(decoding: await Subprocess.readToEnd(errors.fileHandleForReading), as: UTF8.self)
        #expect(status == 130 && said.contains("interrupted") && !said.contains("more than 10 s"), "\(status): \(said)")
        // Nothing half-made is published: a frame the interruption cut is not written. (On a
        // loaded CI machine a stopped render was once published; whatever it holds must be
        // the shader's grey, never the clip's colours left as they came.)
        if FileManager.default.fileExists(atPath: scratch.path("out.mp4")) {
            let rgb = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", scratch.path("out.mp4"), "-f", "rawvideo",
                                                                   "-pix_fmt", "rgb24", "-"])
            var colourful = 0
            for i in stride(from: 0, to: rgb.count - 2, by: 3) where abs(Int(rgb[i]) - Int(rgb[i + 1])) > 8 || abs(Int(rgb[i + 1]) - Int(rgb[i + 2])) > 8 {
                colourful += 1
            }
            #expect(colourful == 0, "\(said): \(colourful) pixels of the published \(rgb.count / 3) are not the shader's grey")
        }
    }
}
