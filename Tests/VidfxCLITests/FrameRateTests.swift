import Foundation
import FrameCore
import FrameSource
import TestSupport
import Testing

/// `--fps source` and `--fps-rounding` (issue 67, item 3): the input's own rate kept, picture
/// for picture; ffmpeg's `fps` filter's two roundings, picture for picture and count for count;
/// a flash and its beep in step.
@Suite struct FrameRateTests {
    /// A clip whose picture n has luma 20 + 2n (limited range, lossless), so each picture
    /// says which it is.
    static func numbered(rate: String, seconds: Double, in scratch: borrowing Scratch) async throws -> String {
        let path = scratch.path("numbered-\(rate.replacingOccurrences(of: "/", with: "_")).mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
            "nullsrc=s=64x48:r=\(rate):d=\(seconds),format=yuv420p,geq=lum='20+2*N':cb=128:cr=128",
            "-c:v", "libx264", "-qp", "0", "-color_range", "tv", path])
        return path
    }

    /// The picture numbers of full-range grey levels (limited 20 + 2n, widened to full).
    static func numbers(grey levels: [Double]) -> [Int] {
        levels.map { Int((($0 * 219 / 255 + 16 - 20) / 2).rounded()) }
    }

    /// The numbers of the pictures ffmpeg's filters make of `path`.
    static func ffmpegNumbers(_ path: String, filter: [String]) async throws -> [Int] {
        let data = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path] + filter
                                               + ["-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let n = 64 * 48
        return numbers(grey: stride(from: 0, to: data.count - n + 1, by: n).map { start in
            Double(data[start..<(start + n)].reduce(0) { $0 + Int($1) }) / Double(n)
        })
    }

    /// The numbers of the frames `vidfx dump` gives of `path`.
    static func vidfxNumbers(_ path: String, _ arguments: [String], in scratch: borrowing Scratch) async throws -> [Int] {
        let out = scratch.path("frames.bgra")
        let r = try await CLI.run(["dump", path, "--format", "bgra", "-o", out, "-y", "-q"] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        let n = 64 * 48 * 4
        return numbers(grey: stride(from: 0, to: data.count - n + 1, by: n).map { start in
            let green = stride(from: start + 1, to: start + n, by: 4).reduce(0) { $0 + Int(data[$1]) }
            return Double(green) / Double(n / 4)
        })
    }

    /// Video packet times of a file, in order of presentation.
    static func pictureTimes(_ path: String) async throws -> [Double] {
        let csv = String(decoding: try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v",
            "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]), as: UTF8.self)
        return csv.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces).split(separator: ",").first ?? "") }.sorted()
    }

    @Test(arguments: [("24", 24.0), ("25", 25.0), ("30000/1001", 30000.0 / 1001), ("60", 60.0)])
    func theSourcesRateKeepsEveryPictureAtItsTime(rate: String, fps: Double) async throws {
        let scratch = Scratch()
        let clip = try await Self.numbered(rate: rate, seconds: 1.5, in: scratch)
        let count = Int((1.5 * fps).rounded(.up))
        // Every picture once, in order: what the source shows, frame for frame.
        let numbers = try await Self.vidfxNumbers(clip, ["--fps", "source"], in: scratch)
        #expect(numbers == Array(0..<count), "\(numbers)")
        // Encoded at the source's rate, each picture at its own time.
        let out = scratch.path("out.mp4")
        let r = try await CLI.run(["apply", clip, "--fps", "source", "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await Probe(out)
        #expect(p.video["avg_frame_rate"] == (rate.contains("/") ? rate : rate + "/1") && p.video["nb_read_frames"] == "\(count)", "\(p.video)")
        let (ours, theirs) = (try await Self.pictureTimes(out), try await Self.pictureTimes(clip))
        #expect(ours.count == theirs.count)
        let late = zip(ours, theirs).filter { abs(($0.0 - ours[0]) - ($0.1 - theirs[0])) > 0.001 }
        #expect(late.isEmpty, "pictures off their times: \(late.prefix(5))")
    }

    /// ffmpeg's `fps` filter is the oracle for both roundings: the same pictures, and as
    /// many (rounding near, a 1.5 s clip at 29.97 makes 45 ticks at 30, not 46).
    @Test(arguments: ["30", "24", "60"])
    func eachRoundingPicksWhatFFmpegsFpsPicks(rate: String) async throws {
        let scratch = Scratch()
        let clip = try await Self.numbered(rate: "30000/1001", seconds: 1.5, in: scratch)
        for rounding in ["near", "up"] {
            let theirs = try await Self.ffmpegNumbers(clip, filter: ["-vf", "fps=\(rate):round=\(rounding)"])
            let ours = try await Self.vidfxNumbers(clip, ["--fps", rate, "--fps-rounding", rounding], in: scratch)
            #expect(ours == theirs, "--fps \(rate) --fps-rounding \(rounding): \(ours) against ffmpeg's \(theirs)")
        }
        // The default is today's sample and hold.
        let held = try await Self.vidfxNumbers(clip, ["--fps", rate], in: scratch)
        #expect(held == (try await Self.ffmpegNumbers(clip, filter: ["-vf", "fps=\(rate):round=up"])))
    }

    /// A 29.97 fps clip with a white picture at frames 30 and 60 (1.001 and 2.002 s) and a
    /// beep starting at 1.0 and 2.0 s: kept at its rate, each flash is within half a frame
    /// of its beep, also played twice as fast.
    @Test(arguments: [("1", 1.0), ("2", 2.0)])
    func aFlashStaysWithItsBeep(speed: String, factor: Double) async throws {
        let scratch = Scratch()
        let clip = scratch.path("flash.mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error",
            "-f", "lavfi", "-i", "color=c=black:s=64x48:r=30000/1001:d=3,format=yuv420p,geq=lum='if(eq(mod(N,30),0)*gt(N,0),235,16)':cb=128:cr=128",
            "-f", "lavfi", "-i", "aevalsrc='if(gt(t,0.5)*lt(mod(t,1),0.3),0.5*sin(2*PI*1000*t),0)':s=48000:d=3",
            "-c:v", "libx264", "-c:a", "aac", "-shortest", clip])
        let out = scratch.path("out.mp4")
        let r = try await CLI.run(["apply", clip, "--fps", "source", "--speed", speed, "-o", out, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        // The flashes: pictures whose mean luma is high, at their packet times.
        let grey = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", out, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let times = try await Self.pictureTimes(out)
        let n = 64 * 48
        let levels = stride(from: 0, to: grey.count - n + 1, by: n).map { s in grey[s..<(s + n)].reduce(0) { $0 + Int($1) } / n }
        #expect(levels.count == times.count)
        let flashes = zip(levels, times).filter { $0.0 > 128 }.map { $0.1 - times[0] }
        // The beeps: the first 5 ms window over 0.2 after 50 ms of quiet.
        let sound = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", out, "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        let samples = sound.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var beeps: [Double] = [], quiet = 0, armed = true
        for start in stride(from: 0, to: samples.count - 240, by: 240) {
            let level = samples[start..<(start + 240)].map { abs($0) }.max() ?? 0
            if level < 0.15 { quiet += 1; if quiet >= 10 { armed = true } } else { quiet = 0 }
            if level > 0.2 && armed { beeps.append(Double(start) / 48000); armed = false }
        }
        #expect(flashes.count == 2 && beeps.count == 2, "flashes at \(flashes), beeps at \(beeps)")
        let frame = 1001.0 / 30000
        for (flash, beep) in zip(flashes, beeps) {
            // The sound's own start on the file's timeline (AAC priming) is within 25 ms.
            #expect(abs(flash - beep) <= frame / 2 + 0.025, "a flash at \(flash) s, its beep at \(beep) s (--speed \(speed))")
            #expect(abs(flash - (flash < 1.5 / factor ? 1.001 : 2.002) / factor) <= frame / 2, "a flash at \(flash) s (--speed \(speed))")
        }
        try await CLIProcess.expectInSync(out)
    }

    @Test func theRateFoundIsTheRatesRule() {
        // Plain fractions kept; a VFR average snapped to a whole or NTSC rate near it, else
        // to a thousandth; bounded to 1…1000.
        func rate(_ n: Int64, _ d: Int64) -> String? { FrameSource.outputRate(fromStreamAverage: Rational(n, d))?.description }
        #expect(rate(24, 1) == "24")
        #expect(rate(30000, 1001) == "30000/1001")
        #expect(rate(2610, 89) == "2610/89")
        #expect(rate(2_997_000, 100_003) == "30000/1001")
        #expect(rate(1_798_200, 60_013) == "30000/1001")
        #expect(rate(3_000_001, 100_001) == "30")
        #expect(rate(1_234_567, 50_000) == "24691/1000")
        #expect(rate(1, 100) == "1")
        #expect(rate(90_000, 1) == "1000")
        #expect(rate(0, 1) == nil)
    }
}
