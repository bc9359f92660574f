import Foundation
import TestSupport
import Testing

/// The README's examples run as written: every `$ …` line of its console blocks runs, in
/// order, in one scratch folder (as a reader following along would: `ls stills` after the
/// dump that made them, `echo $?` after a failure), with `testmedia/` and `docs/` there,
/// and the first line it prints must be the first line the README shows. A line that needs
/// what a test cannot have says so in a trailing comment, `# needs …` (a display, a
/// network server, a terminal), and is skipped; one whose first line is a measurement
/// says `# times vary`, and its numbers are not compared.
@Suite struct ReadmeTests {
    struct Example: CustomStringConvertible {
        var line: Int
        var command: String
        /// The first line the README shows under it, if any.
        var expected: String?
        var skipped: Bool
        /// Its first line is a real-time measurement: words compared, numbers not.
        var measured: Bool { command.range(of: #"#\s*times vary"#, options: .regularExpression) != nil }
        var description: String { "README.md:\(line): $ \(command)" }
    }

    static func examples() throws -> [Example] {
        let text = try String(contentsOf: CLI.directory.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [Example] = []
        var inConsole = false
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                let command = String(line.dropFirst(2))
                examples.append(Example(line: number + 1, command: command, expected: nil,
                                        skipped: command.range(of: #"#\s*needs "#, options: .regularExpression) != nil))
            } else if !examples.isEmpty, examples[examples.count - 1].expected == nil, !line.isEmpty {
                examples[examples.count - 1].expected = line
            }
        }
        return examples
    }

    /// Whitespace-separated words: how a line compares (`ls` puts names in columns on a
    /// terminal and one a line in a pipe; both read the same here).
    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
    }

    @Test func theExamplesAreThere() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 40, "the parser found \(examples.count) examples")
        #expect(examples.filter { !$0.skipped && $0.command.hasPrefix("vidfx ") }.count >= 30)
        // Skipped lines are the marked ones only; nothing that names a missing file runs.
        for example in examples where !example.skipped {
            for word in Self.words(example.command) where word.hasSuffix(".mp4") || word.hasSuffix(".mkv") || word.hasSuffix(".ts")
                                                           || word.hasSuffix(".webm") {
                let name = word.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if name.contains("/") && !name.contains("://") {
                    #expect(name.hasPrefix("testmedia/") && FileManager.default.fileExists(atPath: CLI.directory.appendingPathComponent(name).path),
                            "\(example) names \(name), which is not in testmedia")
                }
            }
        }
    }

    @Test func everyExampleRunsAndPrintsWhatTheReadmeShows() async throws {
        let folder = try ScratchDirectory("vidfx-readme")
        for name in ["testmedia", "docs"] {
            try FileManager.default.createSymbolicLink(at: folder.url.appendingPathComponent(name),
                                                       withDestinationURL: CLI.directory.appendingPathComponent(name))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLI.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        var status: Int32 = 0
        for example in try Self.examples() where !example.skipped {
            // `$?` is the previous line's status, as in the reader's shell.
            let script = "(exit \(status)); { \(example.command)\n} 2>&1"
            let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder.url,
                                                 environment: environment, captureStandardError: false)
            status = r.status
            guard let expected = example.expected else { continue }
            // A measurement compares its words with every digit masked.
            func form(_ text: String) -> [Substring] {
                example.measured ? Self.words(text.replacing(/[0-9]+/, with: "#")) : Self.words(text)
            }
            let shown = form(expected), printed = form(String(decoding: r.stdout, as: UTF8.self))
            #expect(Array(printed.prefix(shown.count)) == shown,
                    "\(example)\n  README: \(expected)\n  prints: \(String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").first ?? "")")
        }
    }
}
