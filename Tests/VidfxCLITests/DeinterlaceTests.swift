import Foundation
import TestSupport
import Testing

/// Interlaced clips made here: a 59.94p test pattern with motion woven into 29.97i
/// fields (top first), as MPEG-2 TS with its pictures flagged interlaced (broadcast),
/// and as VP9 WebM, whose stream says nothing of its scan; a photograph panned at
/// 59.94p and woven in either field order, as H.264 that says it is progressive (a
/// wrong flag: the fields were woven before encoding). Progressive clips: the test
/// pattern (which libavfilter's idet calls interlaced), and the photograph panned
/// slowly under heavy grain.
@Suite struct DeinterlaceTests {
    final class Clips: Sendable {
        let scratch: ScratchDirectory
        init() throws { scratch = try ScratchDirectory("vidfx-fields") }
        func path(_ name: String) -> String { scratch.path(name) }
        func ffmpeg(_ a: [String]) async throws -> Data { try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + a) }

        /// `fields.ts` (flagged), `unflagged.webm` (no scan information), `progressive.mp4`.
        func make() async throws {
            _ = try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=60000/1001:d=2", "-vf", "interlace=scan=tff:lowpass=0,setfield=tff",
                            "-c:v", "mpeg2video", "-q:v", "2", "-flags", "+ilme+ildct", "-top", "1", path("fields.ts")])
            _ = try await ffmpeg(["-i", path("fields.ts"), "-c:v", "libvpx-vp9", "-b:v", "3M", "-deadline", "realtime", "-cpu-used", "8", path("unflagged.webm")])
            _ = try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-c:v", "libx264", "-preset", "ultrafast", path("progressive.mp4")])
            // RGB before the crop, so that it moves by odd columns too.
            let photo = ["-loop", "1", "-framerate", "60000/1001", "-i", CLI.testmedia.path + "/crowd.jpg"]
            let pan = "format=rgb24,crop=320:240:x='3*n':y=150,format=yuv420p"
            for order in ["tff", "bff"] {
                // B-pictures nothing refers to, which a seek skips on its way to the target.
                _ = try await ffmpeg(photo + ["-vf", "\(pan),interlace=scan=\(order):lowpass=0", "-frames:v", "60", "-c:v", "libx264", "-crf", "18",
                                        "-preset", "veryfast", "-bf", "3", "-x264-params", "b-pyramid=none", path("woven-\(order).mp4")])
            }
            _ = try await ffmpeg(["-loop", "1", "-framerate", "30000/1001", "-i", CLI.testmedia.path + "/crowd.jpg", "-vf",
                            "format=rgb24,crop=320:240:x=n:y=150,noise=alls=20:allf=t,format=yuv420p", "-frames:v", "30",
                            "-c:v", "libx264", "-crf", "18", "-preset", "veryfast", path("grainy.mp4")])
        }

        /// vidfx's frames as raw BGRA.
        func vidfx(_ input: String, _ options: [String] = []) async throws -> (frames: Data, stderr: String) {
            let out = path("out-\(UUID().uuidString).bgra")
            let r = try await CLI.run(["dump", path(input), "--format", "bgra", "-o", out] + options)
            #expect(r.status == 0, "\(r.stderr)")
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: out))
            defer { try? handle.close() }
            return (try handle.readToEnd() ?? Data(), r.stderr)
        }
    }

    /// Combing: the mean energy of the vertical [1, −2, 1] filter over the grey picture.
    static func combing(_ data: Data, width: Int = 320, height: Int = 240) -> Double {
        let frames = data.count / (width * height * 4)
        var sum = 0.0
        data.withUnsafeBytes { (p: UnsafeRawBufferPointer) in
            func grey(_ f: Int, _ x: Int, _ y: Int) -> Double {
                let i = ((f * height + y) * width + x) * 4
                return (Double(p[i]) + Double(p[i + 1]) + Double(p[i + 2])) / 3
            }
            for f in 0..<frames {
                for y in 1..<(height - 1) {
                    for x in 0..<width {
                        let d = grey(f, x, y - 1) - 2 * grey(f, x, y) + grey(f, x, y + 1)
                        sum += d * d
                    }
                }
            }
        }
        return sum / Double(max(1, frames) * (height - 2) * width)
    }

    @Test(arguments: [("fields.ts", "tff"), ("unflagged.webm", "tff"), ("woven-tff.mp4", "tff"), ("woven-bff.mp4", "bff")])
    func interlacedPicturesComeOutWithoutCombing(clip: String, parity: String) async throws {
        let clips = try Clips()
        try await clips.make()
        let auto = try await clips.vidfx(clip)
        let woven = try await clips.vidfx(clip, ["--deinterlace", "off"])
        let reference = try await clips.ffmpeg(["-i", clips.path(clip), "-vf", "bwdif=mode=send_frame:parity=\(parity):deint=all,fps=30:round=up,format=bgra",
                                          "-f", "rawvideo", "-"])
        let frames = auto.frames.count / (320 * 240 * 4)
        #expect(auto.frames.count % (320 * 240 * 4) == 0 && [60, 61].contains(frames), "\(frames) frames")
        let (a, w, r) = (Self.combing(auto.frames), Self.combing(woven.frames), Self.combing(reference))
        #expect(abs(a - r) <= 0.1 * r, "\(clip): combing \(a), ffmpeg's bwdif \(r)")
        #expect(a < 0.5 * w, "\(clip): combing \(a), the woven fields \(w)")
        if clip.hasPrefix("woven") {
            // The field order comes from the pictures: the wrong one would comb as much as weaving.
            let order = parity == "tff" ? "top field first" : "bottom field first"
            #expect(auto.stderr.contains("flagged progressive, but they are interlaced") && auto.stderr.contains(order), "\(auto.stderr)")
        } else if clip == "unflagged.webm" {
            #expect(auto.stderr.contains("does not say whether it is interlaced, but its pictures are"), "\(auto.stderr)")
        } else {
            #expect(!auto.stderr.contains("warning"), "\(auto.stderr)")
        }
    }

    @Test(arguments: ["progressive.mp4", "grainy.mp4"])
    func progressiveVideoIsLeftAloneUnlessAsked(clip: String) async throws {
        let clips = try Clips()
        try await clips.make()
        let auto = try await clips.vidfx(clip)
        let off = try await clips.vidfx(clip, ["--deinterlace", "off"])
        let on = try await clips.vidfx(clip, ["--deinterlace", "on"])
        #expect(auto.frames == off.frames)
        #expect(!auto.stderr.contains("warning"), "\(auto.stderr)")
        #expect(on.frames != off.frames && on.frames.count == off.frames.count)
    }

    /// probe tells what the pictures show where the stream is wrong or silent, and only there.
    @Test func probeSaysWhatTheFirstPicturesShow() async throws {
        let clips = try Clips()
        try await clips.make()
        func scan(_ clip: String, _ options: [String] = []) async throws -> String {
            let r = try await CLI.run(["probe", clips.path(clip)] + options)
            #expect(r.status == 0, "\(r.stderr)")
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("scan") }.map(String.init) ?? ""
        }
        #expect(try await scan("woven-bff.mp4").hasSuffix("progressive by the stream; interlaced (bottom field first) by its first pictures: deinterlaced (--deinterlace off to keep it as it is)"))
        #expect(try await scan("woven-bff.mp4", ["--deinterlace", "off"]) == "scan        progressive")
        #expect(try await scan("progressive.mp4") == "scan        progressive")
        #expect(try await scan("fields.ts") == "scan        interlaced (top field first)")
        let json = try await CLI.run(["probe", clips.path("woven-tff.mp4"), "--json"])
        let video = try #require((try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])?["video"] as? [String: Any])
        #expect(video["measuredScan"] as? String == "interlaced (top field first)" && video["scan"] as? String == "progressive")
    }

    @Test func seeksIntoDeinterlacedVideoLandOnTheSamePicture() async throws {
        let clips = try Clips()
        try await clips.make()
        let size = 320 * 240 * 4
        // The wrongly flagged clip is decided on its first pictures however it is entered:
        // after a seek, skipped B-pictures leave gaps, and pictures two or more apart
        // measure progressive.
        for (clip, ticks) in [("fields.ts", [0, 12, 13, 31, 47]), ("woven-tff.mp4", [0, 1, 29, 50])] {
            let all = try await clips.vidfx(clip).frames
            for k in ticks {
                let one = try await clips.vidfx(clip, ["--at", "\(k)/30"]).frames
                #expect(one == all.subdata(in: (k * size)..<((k + 1) * size)), "\(clip) --at tick \(k)")
            }
            // All at once, out of order: one reader seeking back and forth gives the same.
            let order = ticks.reversed() + [ticks[1]]
            let several = try await clips.vidfx(clip, ["--at", order.map { "\($0)/30" }.joined(separator: ",")]).frames
            #expect(several == order.map { all.subdata(in: ($0 * size)..<(($0 + 1) * size)) }.reduce(Data(), +), "\(clip) --at \(order)")
        }
    }
}
