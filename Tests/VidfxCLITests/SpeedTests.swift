import Foundation
import TestSupport
import Testing

/// `--speed F` (issue 48): tick k shows what the source shows at F·k/N, frame for frame;
/// the sound plays F times as fast at its own pitch (atempo), its moments where the
/// pictures of those moments are, and ends with the picture.
@Suite struct SpeedTests {
    static func frames(_ path: String) throws -> [Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let size = 320 * 240 * 4
        return stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    @Test(arguments: [("2", 45), ("0.5", 180), ("1.5", 60)])
    func eachTickShowsTheSourceAtFTimesItsTime(speed: String, count: Int) async throws {
        let scratch = Scratch()
        let plain = scratch.path("plain.bgra"), fast = scratch.path("fast.bgra")
        var r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", plain, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--speed", speed, "--format", "bgra", "-o", fast, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let a = try Self.frames(plain), b = try Self.frames(fast)
        let f = Double(speed)!
        #expect(a.count == 90 && b.count == count)
        // The source is 30 fps from 0: what is on screen at F·k/30 is its frame ⌊F·k⌋.
        let wrong = b.indices.filter { b[$0] != a[Int((f * Double($0)).rounded(.down))] }
        #expect(wrong.isEmpty, "ticks showing another picture: \(wrong)")
    }

    /// Beeps of 1 kHz, 0.3 s long, at each whole second of a 4-second clip (long enough
    /// that atempo's windows at 2× keep every one: at 0.1 s, ffmpeg's drops some).
    static func beeps(in scratch: borrowing Scratch) async throws -> String {
        let path = scratch.path("beeps.mp4")
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4",
                                                        "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t,1),0.3),0.5*sin(2*PI*1000*t),0)':s=48000:d=4",
                                                        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", path])
        return path
    }

    @Test(arguments: ["2", "0.5"])
    func theSoundKeepsItsPitchAndItsMoments(speed: String) async throws {
        let scratch = Scratch()
        let source = try await Self.beeps(in: scratch), output = scratch.path("out.mp4")
        let r = try await CLI.run(["apply", source, "--speed", speed, "-o", output])
        #expect(r.status == 0, "\(r.stderr)")
        func samples(_ path: String, _ filter: [String] = []) async throws -> [Float] {
            let data = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path] + filter
                                                   + ["-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
            return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        // Onsets: the first 5 ms window over 0.2 after at least 50 ms under 0.15 (WSOLA
        // leaves a little sound just before a beep, and ramps it in).
        func onsets(_ samples: [Float]) -> [Double] {
            var found: [Double] = [], quiet = 0, armed = true
            for start in stride(from: 0, to: samples.count - 240, by: 240) {
                let level = samples[start..<(start + 240)].map { abs($0) }.max() ?? 0
                if level < 0.15 { quiet += 1; if quiet >= 10 { armed = true } } else { quiet = 0 }
                if level > 0.2 && armed { found.append(Double(start) / 48000); armed = false }
            }
            return found
        }
        let f = Double(speed)!
        let ours = try await samples(output)
        let theirs = try await samples(source, ["-af", "atempo=\(speed)"])
        let (found, oracle) = (onsets(ours), onsets(theirs))
        let expected = (0..<4).map { Double($0) / f }
        #expect(found.count == 4 && oracle.count == 4, "onsets \(found), ffmpeg's atempo \(oracle)")
        // Where ffmpeg's atempo puts each beep, within a frame; and near its picture's
        // time (WSOLA's windows move a beep by up to 45 ms, ffmpeg's too).
        for (ours, (theirs, wanted)) in zip(found, zip(oracle, expected)) {
            #expect(abs(ours - theirs) <= 1.0 / 30, "a beep at \(ours) s, ffmpeg's at \(theirs) s")
            #expect(abs(ours - wanted) <= 0.06, "a beep at \(ours) s, its picture at \(wanted) s")
        }
        // The pitch: the zero crossings within the first beep, each placed between its two
        // samples, the first to the last as a frequency (the issue's floor is 1%).
        if let first = found.first {
            let length = min(2400, Int(0.3 / f * 48000) - 960)
            let s = Int(first * 48000) + 480
            var crossings: [Double] = []
            for i in s..<(s + length - 1) where (ours[i] < 0) != (ours[i + 1] < 0) {
                crossings.append(Double(i) + Double(ours[i]) / Double(ours[i] - ours[i + 1]))
            }
            if let a = crossings.first, let b = crossings.last, crossings.count > 20 {
                let hertz = Double(crossings.count - 1) / 2 / ((b - a) / 48000)
                #expect(abs(hertz - 1000) < 10, "the beep is at \(hertz) Hz")
            } else {
                Issue.record("no tone in the first beep: \(crossings.count) zero crossings")
            }
        }
        try await CLIProcess.expectInSync(output)
    }

    @Test(arguments: ["9", "0.1"])
    func aSpeedOutOfRangeIsOneLine(speed: String) async throws {
        let scratch = Scratch()
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--speed", speed, "-o", scratch.path("x.mp4")])
        #expect(r.status != 0 && r.stderr.contains("between 0.25 and 8"), "\(r.stderr)")
        #expect(scratch.contents.isEmpty)
    }
}
