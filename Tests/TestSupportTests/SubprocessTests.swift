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

    /// A long-lived child started through `withoutInheritedDescriptors` holds no pipe but
    /// its standard three, even while the test holds a pipe that is not close-on-exec (as
    /// every pipe another test makes for its own child is, for a moment).
    @Test func aLongLivedChildKeepsNoOtherDescriptor() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(fcntl(ends[1], F_GETFD) & FD_CLOEXEC == 0, "the pipe would be inherited")
        // The shell's descriptors and what each is (`N -> pipe:[…]`), listed by a child of it.
        let (executable, arguments) = Subprocess.withoutInheritedDescriptors("/bin/sh", ["-c", "ls -l /proc/$$/fd"])
        let outcome = try await Subprocess.outcome(executable, arguments)
        #expect(outcome.status == 0)
        let held = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> (Int, String)? in
            let parts = line.split(separator: " ")
            guard let arrow = parts.firstIndex(of: "->"), arrow > 0, arrow + 1 < parts.count, let n = Int(parts[arrow - 1]) else { return nil }
            return (n, String(parts[arrow + 1]))
        }
        #expect(held.contains { $0.0 == 1 && $0.1.hasPrefix("pipe:") }, "the listing is the shell's: \(held)")
        let pipes = held.filter { $0.0 > 2 && $0.1.hasPrefix("pipe:") }
        #expect(pipes.isEmpty, "the child holds the pipes \(pipes); the test's pipe is \(ends)")
    }

    @Test func aProgramThatEndsIsNotAHang() async throws {
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo done; exit 3"], hangLimit: .seconds(600))
        #expect(outcome.status == 3)
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "done\n")
    }
}
