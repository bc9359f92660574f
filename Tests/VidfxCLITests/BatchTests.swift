import Foundation
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
}
