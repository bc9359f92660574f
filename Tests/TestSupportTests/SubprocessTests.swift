import Foundation
import Testing
import TestSupport

/// The suite's own safety net: a program that hangs fails its test, by name, and takes
/// what it started with it, instead of holding the run until CI's limit.
@Suite struct SubprocessTests {
    @Test func aProgramPastItsHangLimitIsKilledWithWhatItStarted() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hang-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pidFile = scratch.appendingPathComponent("child.pid").path
        // A shell that starts a long sleep of its own and waits for it: both must go.
        let script = "sleep 600 & echo $! > '\(pidFile)'; wait"
        var thrown: (any Error)?
        do {
            _ = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", script], hangLimit: .seconds(2))
        } catch {
            thrown = error
        }
        let hang = try #require(thrown as? Subprocess.Hang, "expected a Hang, got \(String(describing: thrown))")
        #expect(hang.command.hasPrefix("/bin/sh -c sleep 600"))
        #expect(hang.description.contains("did not end within"))
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie waiting for init to reap it: not running either way.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))
            .flatMap { $0.split(separator: ")").last?.split(separator: " ").first }
        #expect(state == nil || state == "Z", "the grandchild \(pid) still runs (state \(state.map(String.init) ?? "?"))")
    }

    @Test func aProgramThatEndsIsNotAHang() async throws {
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo done; exit 3"], hangLimit: .seconds(600))
        #expect(outcome.status == 3)
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "done\n")
    }
}
