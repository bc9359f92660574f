import Foundation
import TestSupport
import Testing

/// Every example in every command's `--help` runs, in a scratch folder where the files it
/// names exist (clip.mp4, talk.mp4 and crowd.mp4 are test clips, clips/ holds two, a job
/// file and a chain file are there). What a test cannot have is stood in for, and only
/// that: `https://example.com/…` is the suite's loopback server, a player reading a pipe
/// (`mpv -`) is `head`, the window and terminal sinks are the y4m sink into it, and the
/// studio is asked for its address, then stopped. An example that fails names itself.
@Suite struct HelpExampleTests {
    struct Example: CustomStringConvertible {
        var command: String
        var line: String
        var description: String { "vidfx \(command) --help: \(line)" }
    }

    /// The example lines of every command's help (wide, so none is wrapped).
    static func examples() async throws -> [Example] {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "400"
        let overview = try await Subprocess.outcome(CLI.executable, ["--help"], environment: environment)
        let names = HelpTests.listedCommands(String(decoding: overview.stdout, as: UTF8.self))
        var examples: [Example] = []
        for name in names {
            let help = try await Subprocess.outcome(CLI.executable, [name, "--help"], environment: environment)
            for line in String(decoding: help.stdout, as: UTF8.self).split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("vidfx ") else { continue }
                // A trailing `# …` is a remark for the reader, not part of the command.
                let command = text.range(of: #"\s+#\s.*$"#, options: .regularExpression).map { String(text[..<$0.lowerBound]) } ?? text
                examples.append(Example(command: name, line: command))
            }
        }
        return examples
    }

    @Test func everyHelpExampleRuns() async throws {
        let examples = try await Self.examples()
        #expect(examples.count >= 10, "found \(examples.count) examples")
        let folder = try ScratchDirectory("vidfx-help-examples")
        let fm = FileManager.default
        for (name, media) in [("clip.mp4", "h264-30fps.mp4"), ("talk.mp4", "h264-30fps.mp4"), ("crowd.mp4", "crowd.mp4")] {
            try fm.createSymbolicLink(at: folder.url.appendingPathComponent(name), withDestinationURL: CLI.testmedia.appendingPathComponent(media))
        }
        try fm.createDirectory(at: folder.url.appendingPathComponent("clips"), withIntermediateDirectories: true)
        for (name, media) in [("a.mp4", "h264-24fps.mp4"), ("b.mp4", "vp9-opus.webm")] {
            try fm.createSymbolicLink(at: folder.url.appendingPathComponent("clips/" + name), withDestinationURL: CLI.testmedia.appendingPathComponent(media))
        }
        try fm.createDirectory(at: folder.url.appendingPathComponent("renders"), withIntermediateDirectories: true)
        try fm.copyItem(at: CLI.directory.appendingPathComponent("docs/grade.chain"), to: folder.url.appendingPathComponent("grade.chain"))
        try #"{"input": "clip.mp4", "output": "out/job.mp4", "chain": "noir", "args": ["--duration", "1"]}"#
            .write(to: folder.url.appendingPathComponent("jobs.jsonl"), atomically: true, encoding: .utf8)
        let server = try await MediaServer()
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLI.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        for example in examples {
            var line = example.line
                .replacingOccurrences(of: "https://example.com/clip.mp4", with: "http://127.0.0.1:\(server.port)/files/cuts.mp4")
                .replacingOccurrences(of: "| mpv -", with: "| head -c 2000000 > /dev/null")
            if example.command == "studio" {
                try await expectStudioStarts(line, in: folder.url, example: example)
                continue
            }
            if example.command == "preview" && !line.contains("--sink y4m") {
                line = line.replacingOccurrences(of: " --sink terminal", with: "") + " --sink y4m | head -c 2000000 > /dev/null"
            }
            let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["-o", "pipefail", "-c", line], in: folder.url,
                                                 environment: environment)
            // A preview into a pipe whose reader stops ends as the show ends, with 0 (pipefail: either side).
            #expect(r.status == 0, "\(example)\n  ran: \(line)\n  exit \(r.status): \(r.stderrText)")
            // The segment example stands for one machine of four: the others render theirs, for concat's example.
            if line.contains("--segment 2/4") {
                for i in [1, 3, 4] {
                    let other = line.replacingOccurrences(of: "2/4", with: "\(i)/4").replacingOccurrences(of: "seg2.mkv", with: "seg\(i).mkv")
                    let o = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["-c", other], in: folder.url, environment: environment)
                    #expect(o.status == 0, "\(other): \(o.stderrText)")
                }
            }
        }
    }

    /// The studio serves until stopped: it passes when it prints its address.
    func expectStudioStarts(_ line: String, in folder: URL, example: Example) async throws {
        var words = try Self.words(line)
        words.removeFirst()  // vidfx
        words += ["--listen", "127.0.0.1:0", "--no-browser"]
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = words
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let running = try Subprocess.Running(process)
        var text = ""
        for await chunk in Subprocess.chunks(out.fileHandleForReading) {
            text += String(decoding: chunk, as: UTF8.self)
            if text.contains("\n") { break }
        }
        running.signal(SIGTERM)
        _ = await running.exit()
        let stderr = await Subprocess.readToEnd(err.fileHandleForReading)
        #expect(text.hasPrefix("vidfx studio: http://127.0.0.1:"), "\(example): \(String(decoding: stderr, as: UTF8.self))")
    }

    /// The words of a command line as bash reads them.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = [], word = "", quote: Character? = nil, inWord = false
        for c in line {
            switch (quote, c) {
            case (nil, " "): if inWord { words.append(word); word = ""; inWord = false }
            case (nil, "\""), (nil, "'"): quote = c; inWord = true
            case let (q?, c) where c == q: quote = nil
            default: word.append(c); inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
