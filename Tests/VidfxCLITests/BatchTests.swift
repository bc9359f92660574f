import Foundation
import TestSupport
import Testing

/// `vidfx batch`: a pool of jobs where one bad file fails only its own job, a job log in
/// GNU parallel's format, and --resume.
@Suite struct BatchTests {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func logLines(_ log: URL) throws -> [[Substring]] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    }

    @Test func aBadFileFailsItsJobAndResumeRunsOnlyWhatFailed() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("jobs.log")
        let inputs = ["h264-30fps.mp4", "garbage.mp4", "h264-24fps.mp4", "vp9-opus.webm"].map { CLI.media($0) }
        let r = try await CLI.run(["batch"] + inputs + ["-o", dir.path + "/{name}.mkv", "-e", "sepia", "--joblog", log.path, "-j", "2", "--args", "--crf 30"])
        #expect(r.status == 1, "one job failed: \(r.stderr)")
        #expect(r.stderr.contains("job 2 (testmedia/garbage.mp4)") && r.stderr.contains("not a readable media file"), "\(r.stderr)")
        #expect(r.stderr.contains("3 jobs done, 1 failed"))
        let outputs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".mkv") }.sorted()
        #expect(outputs == ["h264-24fps.mkv", "h264-30fps.mkv", "vp9-opus.mkv"], "only whole files, no work files")
        #expect(try await Probe(dir.appendingPathComponent("vp9-opus.mkv").path).video["nb_read_frames"] != nil)
        // Each job is an ordinary apply: its audio starts and ends with the video.
        for name in outputs { try await CLIProcess.expectInSync(dir.appendingPathComponent(name).path) }
        var lines = try logLines(log)
        #expect(lines.first?.joined(separator: "\t") == "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand")
        #expect(lines.count == 5 && lines.dropFirst().allSatisfy { $0.count == 9 })
        #expect(lines.dropFirst().filter { $0[6] != "0" }.map { $0[0] } == ["2"])
        #expect(lines.dropFirst().allSatisfy { $0[8].contains("--crf 30") })
        // Again with --resume: the three finished jobs are skipped, the failed one runs again.
        let again = try await CLI.run(["batch"] + inputs + ["-o", dir.path + "/{name}.mkv", "-e", "sepia", "--joblog", log.path, "--resume", "--args", "--crf 30"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("3 jobs already done") && again.stderr.contains("0 jobs done, 1 failed, 3 skipped"), "\(again.stderr)")
        lines = try logLines(log)
        #expect(lines.count == 6)
    }

    /// Issue 67 (10): a pattern that gives two jobs one output (no {name}), or a job an
    /// input's name, is refused before any job runs (it ran the first, then failed the second).
    @Test func aPatternThatWritesOneFileTwiceIsRefusedFirst() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mp4").path, b = dir.appendingPathComponent("b.mp4").path
        for path in [a, b] { try FileManager.default.copyItem(atPath: CLI.media("h264-30fps.mp4"), toPath: path) }
        let before = try Data(contentsOf: URL(fileURLWithPath: b))
        for pattern in [dir.path + "/out.mp4", b] {
            let r = try await CLI.run(["batch", a, b, "-o", pattern, "-e", "sepia", "-y"])
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("{name}"), "\(pattern): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.mp4").path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: b)) == before, "the input is untouched")
    }

    @Test func jobsFromAFile() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let jobs = dir.appendingPathComponent("jobs.jsonl")
        let stills = dir.appendingPathComponent("stills").path, clip = dir.appendingPathComponent("a.mp4").path
        try """
        # two jobs
        {"input": "testmedia/h264-30fps.mp4", "output": "\(clip)", "chain": "noir", "args": ["--duration", "1"]}
        {"input": "testmedia/h264-25fps.mp4", "output": "\(stills)", "command": "dump", "args": ["--at", "0.5,1"]}
        """.write(to: jobs, atomically: true, encoding: .utf8)
        let r = try await CLI.run(["batch", "--jobs", jobs.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await Probe(clip).video["nb_read_frames"] == "30")
        #expect(try FileManager.default.contentsOfDirectory(atPath: stills).filter { $0.hasPrefix("frame_") }.count == 2)
        try "{\"input\": \"x.mp4\"}\n".write(to: jobs, atomically: true, encoding: .utf8)
        let bad = try await CLI.run(["batch", "--jobs", jobs.path])
        #expect(bad.status != 0 && bad.stderr.contains("\(jobs.path):1: not a job") && bad.stderr.contains("no \"output\""), "\(bad.stderr)")
    }

    /// The README's pattern into a folder that does not exist yet; -y for every job; job
    /// arguments as a real list (--arg, or one string split as a shell would).
    @Test func outputFoldersAreMadeAndArgumentsStayWhole() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("new folder/deeper").path
        let input = dir.appendingPathComponent("it's a clip.mp4")
        try FileManager.default.copyItem(at: CLI.testmedia.appendingPathComponent("h264-30fps.mp4"), to: input)
        let log = dir.appendingPathComponent("jobs.log")
        let first = try await CLI.run(["batch", input.path, "-o", out + "/{name}.mp4", "-e", "sepia", "--joblog", log.path, "--arg", "--duration", "--arg", "0.5"])
        #expect(first.status == 0, "\(first.stderr)")
        let made = out + "/it's a clip.mp4"
        #expect(try await Probe(made).video["nb_read_frames"] == "15")
        try await CLIProcess.expectInSync(made)
        // Again: the job refuses to overwrite; with -y it does, with --arg and --args.
        let again = try await CLI.run(["batch", input.path, "-o", out + "/{name}.mp4", "--arg", "--duration", "--arg", "1"])
        #expect(again.status == 1 && again.stderr.contains("-y"), "\(again.stderr)")
        let yes = try await CLI.run(["batch", input.path, "-o", out + "/{name}.mp4", "-y", "--arg", "--duration", "--arg", "1"])
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(try await Probe(made).video["nb_read_frames"] == "30")
        let quoted = try await CLI.run(["batch", input.path, "-o", out + "/{name}.mp4", "-y", "--args", "--duration '0.2' --crf \"30\""])
        #expect(quoted.status == 0, "\(quoted.stderr)")
        #expect(try await Probe(made).video["nb_read_frames"] == "6")
        let unclosed = try await CLI.run(["batch", input.path, "-o", out + "/{name}.mp4", "--args", "--duration '0.2"])
        #expect(unclosed.status == 64 && unclosed.stderr.contains("unclosed '"), "\(unclosed.stderr)")
        // The log's command line, read by a shell, is the job's arguments exactly.
        let line = try #require(try logLines(log).last.map { String($0[8]) })
        let words = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["-c", "printf '%s\\n' " + line])
        #expect(String(decoding: words.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
                == ["apply", input.path, "-o", made, "-e", "sepia", "--duration", "0.5", "-q", "--progress", "none"], "\(line)")
    }

    /// --args is split as bash splits the same text, and the job log quotes it back so that
    /// bash reads the same words.
    @Test func argsAreSplitAsAShellSplitsThem() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = [#"--crf 20 --text 'Take 1'"#, #"a\ b "c \"d\"" '' e"#, #"  x   y  "#, #"--label "it's" "tab\#there""#]
        func words(_ script: String) async throws -> [String] {
            let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["-c", "printf '[%s]\\n' " + script])
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        for (n, text) in cases.enumerated() {
            let log = dir.appendingPathComponent("split-\(n).log")
            let r = try await CLI.run(["batch", "missing.mp4", "-o", dir.path + "/{name}.mp4", "--args", text, "--joblog", log.path, "-q"])
            #expect(r.status == 1, "the input is missing: \(r.stderr)")
            let line = try #require(try logLines(log).last.map { String($0[8]) })
            let logged = try await words(line)
            #expect(Array(logged.dropFirst(4).dropLast(3)) == (try await words(text)), "\(text) logged as \(line)")
        }
    }
}
