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
        #expect(utf8.text.contains("(0.25…1)") && utf8.text.contains("←/→ choose the effect"), "non-ASCII lost under UTF-8")
        let ascii = try await man(page, locale: "C")
        #expect(ascii.warnings.isEmpty, "man --warnings under C: \(ascii.warnings)")
        #expect(ascii.text.contains("(0.25...1)") && ascii.text.contains("<-/-> choose the effect"), "no ASCII stand-in under C")
        #expect(!ascii.text.contains("(0.251)"))
        // Options copied from the page are the ones the tool takes (hyphen-minus, not U+2010).
        #expect(utf8.text.contains("--start") && !utf8.text.contains("\u{2010}"))
        // Every command has its section.
        for command in ["APPLY", "DUMP", "DETECT", "BATCH", "STUDIO", "SCENES"] {
            #expect(utf8.text.contains("\n\(command)\n"), "no \(command) section")
        }
    }
}
