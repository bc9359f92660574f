import Foundation
import Testing
import TestSupport

/// One render across machines: `apply --segment I/N` renders a share of the ticks,
/// `concat` joins the shares by stream copy and muxes the source's audio once.
@Suite struct SegmentTests {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-segments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// The MD5 of every decoded video frame, in order (ffmpeg's framemd5).
    func frameHashes(_ file: String) async throws -> [String] {
        let out = try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", file, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: out, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    /// The decoded audio, as 16-bit samples.
    func audio(_ file: String) async throws -> Data {
        try await CLIProcess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", file, "-map", "0:a", "-f", "s16le", "-"])
    }

    func frameTimes(_ file: String) async throws -> [String] {
        let out = try await CLIProcess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", file])
        return String(decoding: out, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "," }).map(String.init)
    }

    func render(_ extra: [String], segments n: Int, chain: String, joinArgs: [String] = []) async throws -> (whole: String, joined: String) {
        let source = CLI.media("h264-30fps.mp4")
        var parts: [String] = []
        for i in 1...n {
            let seg = path("seg\(i).mkv")
            let r = try await CLI.run(["apply", source, "-e", chain, "--segment", "\(i)/\(n)", "-o", seg, "-q"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(seg)
        }
        let joined = path("joined.mp4"), whole = path("whole.mp4")
        let c = try await CLI.run(["concat"] + parts + ["--audio-from", source, "-o", joined, "-q"] + joinArgs)
        #expect(c.status == 0, "\(c.stderr)")
        let w = try await CLI.run(["apply", source, "-e", chain, "-o", whole, "-q"] + extra)
        #expect(w.status == 0, "\(w.stderr)")
        return (whole, joined)
    }

    @Test func losslessSegmentsJoinToTheSameFramesAsOneRender() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        // Time-dependent effects: keyframes and oldtimes' grain see the whole render's time.
        let (whole, joined) = try await render(["--crf", "0"], segments: 4, chain: "sepia:amount=0@0,1@2s,oldtimes")
        let a = try await frameHashes(whole), b = try await frameHashes(joined)
        #expect(a.count == 90)
        #expect(a == b, "frames differ at \(zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset).prefix(5))")
        try await CLIProcess.expectInSync(joined)
    }

    @Test func normalSettingsKeepTimestampsAudioAndSync() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let (whole, joined) = try await render([], segments: 3, chain: "pixelate:size=4@0,24@3")
        #expect(try await frameTimes(joined) == frameTimes(whole))
        #expect(try await Probe(joined).video["nb_read_frames"] == "90")
        let (sound, reference) = await (try audio(joined), try audio(whole))
        #expect(sound == reference, "the source's audio, copied once")
        try await CLIProcess.expectInSync(joined)
    }

    /// --speed and fades across segments: each segment samples the source at the render's
    /// speed (its ticks are output ticks), and concat's --speed and -e give the sound the
    /// whole render's tempo and fades: the same frames and the same samples.
    @Test func speedAndFadesSplitAndJoinAsOneRender() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let chain = "fade:in=0.5:out=0.5"
        let (whole, joined) = try await render(["--speed", "2", "--crf", "0"], segments: 3, chain: chain,
                                               joinArgs: ["--speed", "2", "-e", chain])
        let a = try await frameHashes(whole), b = try await frameHashes(joined)
        #expect(a.count == 45 && a == b, "\(a.count) and \(b.count) frames")
        let (sound, reference) = await (try audio(joined), try audio(whole))
        #expect(sound.count > 100_000 && sound == reference)
        try await CLIProcess.expectInSync(joined)
    }

    @Test func loopsAndTrimsSplitOnTicksToo() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        // 0.5 s from 1 s, three times: 45 ticks split 2 ways (22 + 23), across a pass boundary.
        let trim = ["--start", "1", "--duration", "0.5", "--loop", "3", "--crf", "0"]
        let (whole, joined) = try await render(trim, segments: 2, chain: "hue:angle=0@0,180@1.5",
                                         joinArgs: ["--start", "1", "--duration", "0.5", "--loop", "3"])
        #expect(try await frameHashes(joined) == frameHashes(whole))
        #expect(try await frameHashes(joined).count == 45)
        // The audio loops with the pictures: the very samples of the whole render, in sync.
        let (sound, reference) = await (try audio(joined), try audio(whole))
        #expect(sound.count > 100_000 && sound == reference)
        try await CLIProcess.expectInSync(joined)
    }

    @Test func gnuParallelRendersTheSameFileAsOneMachine() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = CLI.directory.appendingPathComponent("scripts/render-parallel.sh").path
        let parallel = path("parallel.mp4"), single = path("single.mp4")
        let args = ["-e", "sepia:amount=0@0,1@2s,oldtimes", "--crf", "0", "--start", "0.5", "--duration", "2"]
        let r = try await CLIProcess.shell("s=$1 i=$2 o=$3; shift 3; VIDFX=\"$0\" VIDFX_SEGMENTS=3 \"$s\" \"$i\" \"$o\" \"$@\"",
                                     [script, CLI.media("h264-30fps.mp4"), parallel] + args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", single, "-q"] + args).status == 0)
        #expect(try await frameHashes(parallel) == frameHashes(single))
        let (sound, reference) = await (try audio(parallel), try audio(single))
        #expect(sound.count > 100_000 && sound == reference)
        try await CLIProcess.expectInSync(parallel)
    }

    /// The same render over ssh (`VIDFX_HOSTS`), to an sshd of the test's own on 127.0.0.1
    /// and a local job slot: parallel copies the input there and each segment back. That
    /// host shares this file system, which is where copying back and cleaning up could
    /// delete the user's input or a segment: both must survive.
    @Test func gnuParallelOverSSHRendersTheSameFileAsOneMachine() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await LoopbackSSHServer.start()
        let script = CLI.directory.appendingPathComponent("scripts/render-parallel.sh").path
        let input = path("in put.mp4")  // a space: options and paths must survive the remote shell
        try FileManager.default.copyItem(atPath: CLI.media("h264-30fps.mp4"), toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let overSSH = path("ssh.mp4"), single = path("single.mp4")
        let args = ["-e", "sepia:amount=0@0,1@2s, oldtimes", "--crf", "0", "--duration", "2.5"]
        let r = try await CLIProcess.shell("s=$1 i=$2 o=$3 h=$4; shift 4; VIDFX=\"$0\" VIDFX_SEGMENTS=4 VIDFX_HOSTS=\"$h\" \"$s\" \"$i\" \"$o\" \"$@\"",
                                     [script, input, overSSH, "2/\(server.sshLogin),1/:"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(server.acceptedLogins >= 4, "the jobs did not go through ssh")
        #expect(try await CLI.run(["apply", input, "-o", single, "-q"] + args).status == 0)
        #expect(try await frameHashes(overSSH) == frameHashes(single))
        #expect(try await audio(overSSH) == audio(single))
        try await CLIProcess.expectInSync(overSSH)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before, "the input was changed or deleted")
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let left = try FileManager.default.contentsOfDirectory(atPath: home).filter { $0.hasPrefix("vidfx-render-") }
        #expect(left.isEmpty, "left in the remote login folder: \(left)")
    }

    /// The Slurm script on a one-machine cluster the test starts: an array job for the
    /// segments, a join that waits for them (afterok), the one-machine render's frames and
    /// audio. A failing segment cancels the join and the script says so.
    @Test func slurmArrayRendersTheSameFileAsOneMachine() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let cluster = try await LocalSlurmCluster.start(script: CLI.directory.appendingPathComponent("scripts/slurm-local.sh").path)
        do {
            try await renderThroughSlurm(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    private func renderThroughSlurm(_ cluster: LocalSlurmCluster) async throws {
        let script = CLI.directory.appendingPathComponent("scripts/render-slurm.sbatch").path
        let viaSlurm = path("slurm.mp4"), single = path("single.mp4")
        let args = ["-e", "sepia:amount=0@0,1@2s,oldtimes", "--crf", "0", "--start", "0.5", "--duration", "2"]
        func submit(_ out: String, _ args: [String]) async throws -> (status: Int32, stdout: Data, stderr: String) {
            try await CLIProcess.shell("cd \"$4\" && SLURM_CONF=\"$3\" VIDFX=\"$0\" IN=\"$1\" OUT=\"$2\" N=3 ARGS=\"$5\" WAIT=1 timeout 600 \"$6\"",
                                 [CLI.directory.appendingPathComponent(CLI.media("h264-30fps.mp4")).path, out, cluster.environment["SLURM_CONF"]!, dir.path, args.joined(separator: " "), script])
        }
        let r = try await submit(viaSlurm, args)
        #expect(r.status == 0, "\(r.stderr)\nslurmctld: \(cluster.log("slurmctld"))\nslurmd: \(cluster.log("slurmd"))")
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-o", single, "-q"] + args).status == 0)
        #expect(try await frameHashes(viaSlurm) == frameHashes(single))
        #expect(try await audio(viaSlurm) == audio(single))
        try await CLIProcess.expectInSync(viaSlurm)

        let bad = try await submit(path("bad.mp4"), ["--no-such-option"])
        #expect(bad.status != 0 && bad.stderr.contains("did not complete"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("bad.mp4")))
    }

    /// Joined segments play through every seam in the players people use. mpv decodes every
    /// frame, the one-machine render's frames exactly when lossless, and warns of nothing.
    /// Chromium's <video> plays to the end without an error and, seeked to the frame before
    /// and the frame at each seam, shows the one-machine render's pictures.
    @Test(arguments: [true, false])
    func joinedSegmentsPlayThroughEverySeamInMpvAndChromium(lossless: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let quality = lossless ? ["--crf", "0"] : []
        let joined = path("joined.mp4"), single = path("single.mp4")
        var parts: [String] = []
        for i in 1...4 {
            parts.append(path("seg\(i).mkv"))
            let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "oldtimes", "--segment", "\(i)/4", "-o", parts.last!, "-q"] + quality)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try await CLI.run(["concat"] + parts + ["--audio-from", CLI.media("h264-30fps.mp4"), "-o", joined, "-q"]).status == 0)
        try await CLIProcess.expectInSync(joined)
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "oldtimes", "-o", single, "-q"] + quality).status == 0)
        let plan = try JSONSerialization.jsonObject(with: try await CLI.run(["plan", CLI.media("h264-30fps.mp4"), "--segments", "4"]).stdout) as? [String: Any]
        let seams = try #require(plan?["segments"] as? [[String: Any]]).dropFirst().compactMap { $0["firstTick"] as? Int }
        #expect(seams.count == 3)

        // mpv: every frame, through its own demuxer and decoder, as PNG files.
        func mpvFrames(_ file: String) async throws -> [Data] {
            let out = path("mpv-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let r = try await CLIProcess.shell("exec mpv --no-config --msg-level=all=warn --vo=image --vo-image-format=png --vo-image-outdir=\"$2\" --ao=null --untimed --framedrop=no \"$1\"", [file, out])
            #expect(r.status == 0 && r.stderr.isEmpty, "mpv on \(file): \(r.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
            return try names.map { try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent($0)) }
        }
        let mpvJoined = try await mpvFrames(joined)
        #expect(mpvJoined.count == 90)
        if lossless { #expect(mpvJoined == (try await mpvFrames(single))) }

        // Chromium: to the end, then the frame before and the frame at each seam (mid-frame times).
        let times: [Double] = seams.flatMap { (k: Int) -> [Double] in [(Double(k) - 0.5) / 30, (Double(k) + 0.5) / 30] }
        func chromium(_ file: String) async throws -> [String: Any] {
            let driver = CLI.directory.appendingPathComponent("Tests/Support/browser_seams.py").path
            let list = times.map { String(format: "%.5f", $0) }.joined(separator: ",")
            let out = try await Subprocess.output("/usr/bin/env", ["python3", driver, file, list])
            return try #require(JSONSerialization.jsonObject(with: out) as? [String: Any])
        }
        let played = try await chromium(joined)
        #expect(played["ended"] as? Bool == true && played["error"] is NSNull, "\(played)")
        #expect(abs((played["currentTime"] as? Double ?? 0) - (played["duration"] as? Double ?? -1)) < 0.001)
        let seen = try #require(played["seeks"] as? [[String: Any]])
        #expect(seen.count == times.count)
        for (s, t) in zip(seen, times) { #expect(abs((s["currentTime"] as? Double ?? -1) - t) < 0.001, "\(s)") }
        let hashes = seen.compactMap { $0["hash"] as? String }
        #expect(Set(hashes).count == hashes.count, "each seek shows another picture: \(hashes)")
        if lossless {
            let reference = try #require(try await chromium(single)["seeks"] as? [[String: Any]]).compactMap { $0["hash"] as? String }
            #expect(hashes == reference)
        }
    }

    @Test func planListsTheSegmentsAsJSON() async throws {
        let r = try await CLI.run(["plan", CLI.media("h264-30fps.mp4"), "--segments", "4", "--loop", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(plan["ticks"] as? Int == 180)
        let segments = try #require(plan["segments"] as? [[String: Any]])
        #expect(segments.map { $0["segment"] as? String } == ["1/4", "2/4", "3/4", "4/4"])
        #expect(segments.map { $0["firstTick"] as? Int } == [0, 45, 90, 135] && segments.last?["endTick"] as? Int == 180)
        let bySeconds = try await CLI.run(["plan", CLI.media("h264-30fps.mp4"), "--segment-seconds", "1"])
        #expect((try JSONSerialization.jsonObject(with: bySeconds.stdout) as? [String: Any])?["segments"].map { ($0 as? [Any])?.count } == 3)
    }

    @Test func mismatchedSegmentsAreRefusedNamingTheSegment() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = path("a.mkv"), b = path("b.mkv")
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--segment", "1/2", "-o", a, "-q"]).status == 0)
        #expect(try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--segment", "2/2", "--size", "160x120", "-o", b, "-q"]).status == 0)
        // Another size is another render: refused by its label; forced, by the stream check.
        let r = try await CLI.run(["concat", a, b, "-o", path("out.mp4")])
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("\(b): is from another render than \(a)"), "\(r.stderr)")
        let forced = try await CLI.run(["concat", a, b, "-o", path("out.mp4"), "--force"])
        #expect(forced.status != 0)
        #expect(forced.stderr.split(separator: "\n").count == 1 && forced.stderr.contains("\(b): does not match the first segment"), "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("out.mp4")))
        let bad = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "--segment", "5/4", "-o", path("x.mkv")])
        #expect(bad.status != 0 && bad.stderr.contains("--segment"))
    }

    /// Each segment says which one it is: concat puts them in order, and refuses a missing,
    /// repeated, foreign or unlabelled one, naming it and writing nothing.
    @Test func segmentsKnowWhatTheyAre() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = CLI.media("h264-30fps.mp4")
        var seg: [String] = []
        for i in 1...3 {
            // The middle one as MP4, whose own tags need use_metadata_tags.
            seg.append(path("seg\(i).\(i == 2 ? "mp4" : "mkv")"))
            let r = try await CLI.run(["apply", source, "-e", "sepia:amount=0@0,1@2s", "--segment", "\(i)/3", "-o", seg[i - 1], "-q"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        func concat(_ parts: [String], _ out: String, _ extra: [String] = []) async throws -> CLI.Result {
            try await CLI.run(["concat"] + parts + ["--audio-from", source, "-o", path(out)] + extra)
        }
        let ordered = try await concat(seg, "ordered.mp4")
        #expect(ordered.status == 0, "\(ordered.stderr)")
        let shuffled = try await concat([seg[2], seg[0], seg[1]], "shuffled.mp4")
        #expect(shuffled.status == 0 && shuffled.stderr.contains("joining in the render's order"), "\(shuffled.stderr)")
        let (x, y) = (FileManager.default.contents(atPath: path("ordered.mp4")), FileManager.default.contents(atPath: path("shuffled.mp4")))
        #expect(x != nil && x == y, "the same file, whatever order the segments came in")
        try await CLIProcess.expectInSync(path("shuffled.mp4"))

        // A second copy of segment 2, a segment 2 of another chain, and a file that is no segment.
        try FileManager.default.copyItem(atPath: seg[1], toPath: path("again.mp4"))
        let foreign = path("foreign.mkv"), plain = path("plain.mkv")
        #expect(try await CLI.run(["apply", source, "-e", "noir", "--segment", "2/3", "-o", foreign, "-q"]).status == 0)
        #expect(try await CLI.run(["apply", source, "-o", plain, "-q", "--no-audio"]).status == 0)
        let refusals: [([String], String)] = [
            ([seg[0], seg[2]], "segment 2 of 3 is missing"),
            ([seg[0], seg[1], path("again.mp4"), seg[2]], "\(path("again.mp4")): is segment 2 of 3 again (so is \(seg[1]))"),
            ([seg[0], foreign, seg[2]], "\(foreign): is from another render than \(seg[0])"),
            ([seg[0], seg[1], seg[2], plain], "\(plain): carries no segment label"),
        ]
        for (parts, reason) in refusals {
            let r = try await concat(parts, "refused.mp4")
            #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(reason) && r.stderr.contains("--force"),
                    "\(reason): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path("refused.mp4")))
        }
        // --force joins what it is given, in that order.
        let forced = try await concat([seg[0], seg[2]], "forced.mp4", ["--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await Probe(path("forced.mp4")).video["nb_read_frames"] == "60")
    }
}
