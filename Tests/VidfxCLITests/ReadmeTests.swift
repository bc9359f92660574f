import Foundation
import TestSupport
import Testing

/// The README's and the guide's examples run as written: every `$ …` line of their console
/// blocks runs, in order, in one scratch folder per file (as a reader following along would:
/// `ls stills` after the dump that made them, `echo $?` after a failure), with `testmedia/`
/// and `docs/` there. In the README a command must print exactly what is shown under it,
/// every line (stdout and stderr as one stream); in docs/guide.md, its first line. A line
/// that needs what a test cannot have says so in a trailing comment, `# needs …` (a display,
/// a network server, a terminal), and is skipped; one whose output is a measurement says
/// `# times vary` (or `# ports vary`), and its numbers are not compared.
@Suite struct ReadmeTests {
    struct Example: CustomStringConvertible {
        var file: String
        var line: Int
        var command: String
        /// The lines shown under it, up to the next command or the block's end.
        var expected: [String]
        var skipped: Bool
        /// Its output is a measurement: words compared, numbers not.
        var measured: Bool { command.range(of: #"#\s*(times|ports) vary"#, options: .regularExpression) != nil }
        var description: String { "\(file):\(line): $ \(command)" }
    }

    static let files = ["README.md", "docs/guide.md"]

    static func examples(in file: String) throws -> [Example] {
        let text = try String(contentsOf: CLI.directory.appendingPathComponent(file), encoding: .utf8)
        var examples: [Example] = []
        var inConsole = false
        var open = false  // the last example's output is still being read
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                open = false
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                let command = String(line.dropFirst(2))
                examples.append(Example(file: file, line: number + 1, command: command, expected: [],
                                        skipped: command.range(of: #"#\s*needs "#, options: .regularExpression) != nil))
                open = true
            } else if open {
                examples[examples.count - 1].expected.append(line)
            }
        }
        // Trailing blanks are no output; the guide compares the first line shown.
        return examples.map { e in
            var e = e
            while e.expected.last?.isEmpty == true { e.expected.removeLast() }
            if file != "README.md" { e.expected = Array(e.expected.first { !$0.isEmpty }.map { [$0] } ?? []) }
            return e
        }
    }

    /// Whitespace-separated words: how lines compare (`ls` puts names in columns on a
    /// terminal and one a line in a pipe; both read the same here).
    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
    }

    @Test func theExamplesAreThere() throws {
        let readme = try Self.examples(in: "README.md"), guide = try Self.examples(in: "docs/guide.md")
        #expect(readme.filter { !$0.skipped && $0.command.hasPrefix("vidfx ") }.count >= 10, "\(readme.count) README examples")
        #expect(readme.filter { !$0.skipped }.allSatisfy { !$0.expected.isEmpty || $0.command.contains(">") },
                "every README example shows its output")
        #expect(guide.count >= 40, "the parser found \(guide.count) examples in the guide")
        #expect(guide.filter { !$0.skipped && $0.command.hasPrefix("vidfx ") }.count >= 30)
        // Skipped lines are the marked ones only; nothing that names a missing file runs.
        for example in readme + guide where !example.skipped {
            for word in Self.words(example.command) where word.hasSuffix(".mp4") || word.hasSuffix(".mkv") || word.hasSuffix(".ts")
                                                           || word.hasSuffix(".webm") {
                let name = word.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if name.contains("/") && !name.contains("://") {
                    #expect(name.hasPrefix("testmedia/") && FileManager.default.fileExists(atPath: CLI.directory.appendingPathComponent(name).path),
                            "\(example) names \(name), which is not in testmedia")
                }
            }
        }
        // The README is a first screen or two, not a manual.
        let lines = try String(contentsOf: CLI.directory.appendingPathComponent("README.md"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 180, "README.md has \(lines.count) lines")
    }

    @Test(arguments: files)
    func everyExampleRunsAndPrintsWhatItShows(file: String) async throws {
        let folder = try ScratchDirectory("vidfx-readme")
        for name in ["testmedia", "docs", "Tests", "shaders"] {
            try FileManager.default.createSymbolicLink(at: folder.url.appendingPathComponent(name),
                                                       withDestinationURL: CLI.directory.appendingPathComponent(name))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLI.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        var status: Int32 = 0
        for example in try Self.examples(in: file) where !example.skipped {
            // `$?` is the previous line's status, as in the reader's shell.
            let script = "(exit \(status)); { \(example.command)\n} 2>&1"
            let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder.url,
                                                 environment: environment, captureStandardError: false)
            status = r.status
            guard !example.expected.isEmpty else { continue }
            // A measurement compares its words with every digit masked.
            func form(_ text: String) -> [Substring] {
                example.measured ? Self.words(text.replacing(/[0-9]+/, with: "#")) : Self.words(text)
            }
            let printedText = String(decoding: r.stdout, as: UTF8.self)
            let shown = form(example.expected.joined(separator: "\n")), printed = form(printedText)
            if file == "README.md" {
                #expect(printed == shown, "\(example)\n  README:\n\(example.expected.joined(separator: "\n"))\n  prints:\n\(printedText)")
            } else {
                #expect(Array(printed.prefix(shown.count)) == shown,
                        "\(example)\n  shows: \(example.expected.joined(separator: "\n"))\n  prints: \(printedText.split(separator: "\n").first ?? "")")
            }
        }
    }
}
