import Foundation
import TestSupport
import Testing

/// vidfx(1), as `make install` and the .deb write it (scripts/man-page.py from every
/// command's --help), read with `man` as a user would: no warnings, every character shown
/// as itself under a UTF-8 locale and as a readable ASCII stand-in under LANG=C.
@Suite struct ManPageTests {
    /// The page in a temporary file (the caller removes it).
    func page() async throws -> URL {
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/python3"), ["scripts/man-page.py", CLI.executable.path],
                                             in: CLI.directory)
        #expect(r.status == 0, "\(r.stderrText)")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-\(UUID().uuidString).1")
        try r.stdout.write(to: url)
        return url
    }

    func man(_ page: URL, locale: String) async throws -> (text: String, warnings: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = locale
        environment["MANWIDTH"] = "120"
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/man"), ["--warnings", "-l", page.path], environment: environment)
        #expect(r.status == 0, "\(r.stderrText)")
        return (String(decoding: r.stdout, as: UTF8.self), r.stderrText)
    }

    @Test func manShowsEveryCharacterWithoutWarnings() async throws {
        let page = try await page()
        defer { try? FileManager.default.removeItem(at: page) }
        let utf8 = try await man(page, locale: "C.UTF-8")
        #expect(utf8.warnings.isEmpty, "man --warnings under C.UTF-8: \(utf8.warnings)")
        // Filled text breaks lines where it likes: compare with the spaces folded.
        func folded(_ text: String) -> String { text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") }
        let utf8Text = folded(utf8.text)
        #expect(utf8Text.contains("(0.25…1)") && utf8Text.contains("←/→ choose the effect"), "non-ASCII lost under UTF-8")
        let ascii = try await man(page, locale: "C")
        #expect(ascii.warnings.isEmpty, "man --warnings under C: \(ascii.warnings)")
        #expect(folded(ascii.text).contains("(0.25...1)") && folded(ascii.text).contains("<-/-> choose the effect"), "no ASCII stand-in under C")
        #expect(!ascii.text.contains("(0.251)"))
        // Options copied from the page are the ones the tool takes (hyphen-minus, not U+2010).
        #expect(utf8.text.contains("--start") && !utf8.text.contains("\u{2010}"))
        // A man page's sections, in a man page's order, not the help pasted in.
        let headings = utf8.text.split(separator: "\n").filter { $0.first?.isUppercase == true }.map(String.init)
        let wanted = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"]
        #expect(headings.filter(wanted.contains) == wanted, "sections: \(headings)")
        #expect(!utf8.text.contains("OVERVIEW:") && !utf8.text.contains("USAGE:"), "the help's own headings are in the page")
        let synopsis = folded(String(utf8.text.split(separator: "DESCRIPTION").first ?? ""))
        // Every command has its subsection, its usage in the synopsis, and its options as entries.
        for command in ["apply", "dump", "detect", "batch", "studio", "scenes", "sheet"] {
            #expect(utf8.text.contains("\n   \(command)\n"), "no \(command) subsection")
            #expect(synopsis.contains("vidfx \(command) "), "\(command) not in the synopsis")
        }
        #expect(utf8.text.contains("\n       --fps-rounding <up|near>\n"), "an option is not an entry of its own")
        // The README's examples, and the exit statuses the commands use.
        #expect(utf8Text.contains("$ vidfx apply testmedia/h264-24fps.mp4 -e \"sepia=0.8,pixelate=6\" -o out.mp4"))
        for status in ["0", "1", "2", "64", "128+N"] { #expect(utf8.text.contains("\n       \(status) "), "exit status \(status) missing") }
    }

    /// ENVIRONMENT names every variable the sources read, and no other.
    @Test func theEnvironmentSectionIsWhatTheSourcesRead() async throws {
        let page = try await page()
        defer { try? FileManager.default.removeItem(at: page) }
        let text = try await man(page, locale: "C.UTF-8").text
        guard let start = text.range(of: "\nENVIRONMENT\n"), let end = text.range(of: "\nFILES\n") else {
            Issue.record("no ENVIRONMENT section"); return
        }
        let section = String(text[start.upperBound..<end.lowerBound])
        let named = Set(section.matches(of: /[A-Z][A-Z0-9_]{3,}/).map { String($0.output) }.filter { $0.contains("_") || $0 == "TMPDIR" || $0 == "DISPLAY" })
        // What Sources/ asks the environment for (Swift and C).
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/grep"),
            ["-rhoE", "(getenv\\(\"|environment\\[\")[A-Z_]+", "Sources"], in: CLI.directory)
        let read = Set(String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map { String($0.split(separator: "\"").last ?? "") })
        // The Vulkan loader reads its own (VK_ICD_FILENAMES), which the page names for lavapipe.
        #expect(read.subtracting(named).isEmpty, "read but not on the page: \(read.subtracting(named).sorted())")
        #expect(named.subtracting(read).subtracting(["VK_ICD_FILENAMES"]).isEmpty, "on the page but never read: \(named.subtracting(read).sorted())")
    }
}
