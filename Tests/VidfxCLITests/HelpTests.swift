import Foundation
import TestSupport
import Testing

/// Help as a user reads it: the overview names every command, and each command's help
/// has no stray escapes and a usage line whose options are spelled as they are typed.
@Suite struct HelpTests {
    /// The commands the root help lists under SUBCOMMANDS.
    static func listedCommands(_ help: String) -> [String] {
        guard let section = help.components(separatedBy: "SUBCOMMANDS:").last else { return [] }
        // A command starts a line with two spaces and its lowercase name, then its description
        // in a column (or on the next, further indented line, when the name is long).
        return section.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^  ([a-z][a-z-]*)(?:  +\S|$)/) else { return nil }
            return String(match.1)
        }
    }

    @Test func theOverviewNamesEveryCommand() async throws {
        let r = try await CLI.run(["--help"])
        #expect(r.status == 0)
        let help = String(decoding: r.stdout, as: UTF8.self)
        let commands = Self.listedCommands(help)
        #expect(commands.count >= 9, "\(help)")
        let overview = try #require(help.components(separatedBy: "USAGE:").first)
        for command in commands {
            #expect(overview.contains(command), "the overview does not name '\(command)'")
        }
    }

    @Test func everyCommandsHelpReadsCleanly() async throws {
        let root = String(decoding: try await CLI.run(["--help"]).stdout, as: UTF8.self)
        let commands = Self.listedCommands(root)
        try #require(!commands.isEmpty)
        for command in commands {
            let r = try await CLI.run([command, "--help"])
            #expect(r.status == 0, "\(command) --help: \(r.stderr)")
            let help = String(decoding: r.stdout, as: UTF8.self)
            // A backslash in a Swift string's source that was meant as a line continuation.
            for line in help.split(separator: "\n") where line.hasSuffix("\\") {
                Issue.record("\(command) --help: a stray backslash ends '\(line)'")
            }
            #expect(!help.contains("\\\\"), "\(command) --help has a doubled backslash")
            let usage = try #require(help.components(separatedBy: "USAGE:").dropFirst().first?
                .components(separatedBy: "\n\n").first, "\(command) --help has no usage line")
            let options = help.components(separatedBy: "OPTIONS:").dropFirst().joined()
            // Each option in the usage line: a long name is --two-or-more letters, a short
            // one -x, and the options section spells it the same way.
            let names = usage.split(whereSeparator: { " []<>.|".contains($0) }).filter { $0.hasPrefix("-") }
            for name in names.map(String.init) {
                let long = name.hasPrefix("--")
                let letters = name.drop { $0 == "-" }
                #expect(long ? letters.count >= 2 : letters.count == 1,
                        "\(command): '\(name)' in the usage line is not how an option is typed")
                #expect(options.contains(name), "\(command): '\(name)' is in the usage line but not among the options")
            }
        }
    }

    /// `-j` is how GNU parallel and make spell the number of jobs at once.
    @Test func batchTakesDashJ() async throws {
        let help = String(decoding: try await CLI.run(["batch", "--help"]).stdout, as: UTF8.self)
        #expect(help.contains("-j, --workers <n>"), "\(help)")
        #expect(!help.contains("--j "), "\(help)")
    }

    /// docs/commands.md is every command's --help as the tool prints it: regenerate it with
    /// `make reference` when a command changes.
    @Test func theCommandReferenceIsTheToolsOwnHelp() async throws {
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/python3"), ["scripts/command-reference.py", CLI.executable.path],
                                             in: CLI.directory)
        #expect(r.status == 0, "\(r.stderrText)")
        let committed = try String(contentsOf: CLI.directory.appendingPathComponent("docs/commands.md"), encoding: .utf8)
        let generated = String(decoding: r.stdout, as: UTF8.self)
        let differing = zip(committed.split(separator: "\n", omittingEmptySubsequences: false),
                            generated.split(separator: "\n", omittingEmptySubsequences: false)).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(committed == generated, "docs/commands.md differs from the tool's help (make reference): line \((differing?.offset ?? -1) + 1): \(differing.map { "\($0.element.0) | \($0.element.1)" } ?? "length")")
    }
}
