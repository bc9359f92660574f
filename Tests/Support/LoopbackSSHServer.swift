import Foundation

/// An OpenSSH server of the test's own on 127.0.0.1: its own host key, one client key, and
/// nothing of the machine's configuration, so that ssh-driven tools (GNU parallel's
/// `--sshlogin`) are tested for real. Stopped with this object.
public final class LoopbackSSHServer: @unchecked Sendable {
    /// The folder holding the keys and both configurations.
    public let directory: ScratchDirectory
    /// What GNU parallel's `--sshlogin` takes to reach this server: an ssh command and a host.
    public let sshLogin: String

    /// The environment variables the client sends and the server accepts (sanitizer options,
    /// which a test's vidfx needs on the far side too).
    public static let forwardedEnvironment = ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"]

    private init(directory: ScratchDirectory, sshLogin: String) {
        self.directory = directory
        self.sshLogin = sshLogin
    }

    /// Starts sshd and waits (up to `timeout`, a hang limit) until a login works.
    /// - Throws: ``Failure`` naming what is missing or what sshd said.
    public static func start(timeout: Duration = .seconds(120)) async throws -> LoopbackSSHServer {
        let directory = try ScratchDirectory("vidfx-sshd")
        let dir = directory.url.path
        for tool in ["/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/rsync"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Failure("\(tool) is missing (make setup-test installs openssh-server and rsync)")
        }
        for key in ["host_key", "client_key"] {
            _ = try await Subprocess.output("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", "\(dir)/\(key)"])
        }
        try FileManager.default.copyItem(atPath: "\(dir)/client_key.pub", toPath: "\(dir)/authorized_keys")
        // sshd refuses to start without its privilege separation folder (root only can make it).
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let port = try await Self.freePort()
        let user = String(decoding: try await Subprocess.output("/usr/bin/id", ["-un"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let forwarded = Self.forwardedEnvironment.joined(separator: " ")
        try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(dir)/host_key
            AuthorizedKeysFile \(dir)/authorized_keys
            PidFile \(dir)/sshd.pid
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            PermitRootLogin prohibit-password
            AcceptEnv \(forwarded)

            """.write(toFile: "\(dir)/sshd_config", atomically: true, encoding: .utf8)
        try """
            Host vidfx-loopback
              HostName 127.0.0.1
              Port \(port)
              User \(user)
              IdentityFile \(dir)/client_key
              IdentitiesOnly yes
              StrictHostKeyChecking no
              UserKnownHostsFile /dev/null
              BatchMode yes
              LogLevel ERROR
              SendEnv \(forwarded)

            """.write(toFile: "\(dir)/ssh_config", atomically: true, encoding: .utf8)
        let server = LoopbackSSHServer(directory: directory, sshLogin: "ssh -F \(dir)/ssh_config vidfx-loopback")

        // sshd goes to the background itself (no -D): Foundation's Process takes a child
        // that closes every inherited descriptor, as sshd does, for one that has exited, and
        // then blocks in waitpid on it, stopping every other Process of the test run.
        let started = try await Subprocess.run("/usr/sbin/sshd", ["-f", "\(dir)/sshd_config", "-E", "\(dir)/sshd.log"])
        guard started.status == 0 else {
            let log = (try? String(contentsOfFile: "\(dir)/sshd.log", encoding: .utf8)) ?? ""
            throw Failure("sshd did not start (exit \(started.status)): \(log.suffix(400))")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let probe = try await Subprocess.run("/usr/bin/ssh", ["-F", "\(dir)/ssh_config", "vidfx-loopback", "true"])
            if probe.status == 0 { return server }
            if clock.now > deadline {
                let log = (try? String(contentsOfFile: "\(dir)/sshd.log", encoding: .utf8)) ?? ""
                server.stop()
                throw Failure("sshd on 127.0.0.1:\(port) did not take a login: \(log.suffix(400))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    deinit { stop() }

    private func stop() {
        // The daemon wrote its process ID once it was listening.
        guard let text = try? String(contentsOfFile: directory.path("sshd.pid"), encoding: .utf8),
              let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, SIGTERM)
    }

    /// How many logins sshd accepted so far (its log says so, one line each).
    public var acceptedLogins: Int {
        let log = (try? String(contentsOfFile: directory.path("sshd.log"), encoding: .utf8)) ?? ""
        return log.components(separatedBy: "Accepted publickey").count - 1
    }

    /// A TCP port free on 127.0.0.1 right now (the kernel's pick).
    private static func freePort() async throws -> Int {
        let out = try await Subprocess.output("/usr/bin/env", ["python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let port = Int(String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure("could not pick a free port")
        }
        return port
    }

    /// Why the server could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
