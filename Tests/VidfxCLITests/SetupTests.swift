import Foundation
import TestSupport
import Testing

/// `scripts/setup.sh` in its two parts: "run" installs what building and running vidfx need
/// and nothing of the test suite's; "test" adds the suite's tools and oracles. Run against
/// stand-ins for dpkg-query (nothing installed), apt-get (records what it is asked for) and
/// sudo, in a scratch copy, so nothing is installed and the machine's state does not matter.
@Suite struct SetupTests {
    /// Packages only the test suite needs: none of them belongs on a user's machine.
    static let testOnly = ["slurmctld", "slurmd", "slurm-client", "munge", "openssh-server", "parallel", "mpv", "chromium",
                           "xvfb", "tmux", "zbar-tools"]
    /// Packages vidfx cannot build or run without.
    static let needed = ["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libzimg-dev", "libsdl2-dev", "libzbar-dev",
                         "libopencv-dnn-dev", "zlib1g-dev"]

    static func list(_ part: String) async throws -> [String] {
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["scripts/setup.sh", "--list", part], in: CLI.directory)
        #expect(r.status == 0, "\(r.stderrText)")
        return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func theListsSplitWhatRunningNeedsFromWhatTestsNeed() async throws {
        let run = try await Self.list("run"), test = try await Self.list("test")
        #expect(Set(run).isDisjoint(with: Self.testOnly), "run installs test-only packages: \(Set(run).intersection(Self.testOnly))")
        #expect(Set(Self.needed).isSubset(of: run), "run lacks \(Set(Self.needed).subtracting(run))")
        #expect(Set(run).isSubset(of: test) && Set(Self.testOnly).isSubset(of: test), "test lacks \(Set(Self.testOnly).subtracting(test))")
        #expect(Set(run).count == run.count && Set(test).count == test.count, "a package listed twice")
        let bad = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["scripts/setup.sh", "--list", "everything"], in: CLI.directory)
        #expect(bad.status == 2 && bad.stderrText.split(separator: "\n").count == 1, "\(bad.stderrText)")
    }

    /// Runs the script in a scratch copy with the stand-ins; returns what apt-get was asked.
    func dryRun(_ part: String, in folder: URL) async throws -> (apt: [String], status: Int32, stderr: String) {
        let bin = folder.appendingPathComponent("fake-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("apt.log")
        let fakes = [
            "dpkg-query": "#!/bin/sh\nexit 1\n",
            "apt-get": "#!/bin/sh\necho \"$@\" >> '\(log.path)'\n",
            "sudo": "#!/bin/sh\nexec \"$@\"\n",
        ]
        for (name, text) in fakes {
            let url = bin.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        try? FileManager.default.removeItem(at: log)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let r = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/bash"), ["scripts/setup.sh", part], in: folder, environment: environment)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let install = text.split(separator: "\n").first { $0.hasPrefix("install") }.map { $0.split(separator: " ").map(String.init) } ?? []
        return (install.filter { !$0.hasPrefix("-") && $0 != "install" }, r.status, r.stderrText)
    }

    @Test func theRunPartInstallsNothingForTheTests() async throws {
        let folder = try ScratchDirectory("vidfx-setup")
        let scripts = folder.url.appendingPathComponent("scripts"), models = folder.url.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.directory.appendingPathComponent("scripts/setup.sh"), to: scripts.appendingPathComponent("setup.sh"))
        // The face model is there (the suite's own setup fetched it): no download here.
        try FileManager.default.createSymbolicLink(at: models.appendingPathComponent("centerface.onnx"),
                                                   withDestinationURL: CLI.directory.appendingPathComponent("models/centerface.onnx"))
        let run = try await dryRun("run", in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Set(run.apt) == Set(try await Self.list("run")), "apt-get was asked for \(run.apt)")
        #expect(Set(run.apt).isDisjoint(with: Self.testOnly))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".oracle-venv").path), "run built the oracle venv")

        // The test part: the oracle venv stamped as current, so only apt-get is asked.
        let setup = try String(contentsOf: scripts.appendingPathComponent("setup.sh"), encoding: .utf8)
        let stamp = try #require(setup.firstMatch(of: /oracle_stamp="([^"]+)"/)).1
        let venv = folder.url.appendingPathComponent(".oracle-venv")
        try FileManager.default.createDirectory(at: venv, withIntermediateDirectories: true)
        try "\(stamp)\n".write(to: venv.appendingPathComponent(".stamp"), atomically: true, encoding: .utf8)
        let test = try await dryRun("test", in: folder.url)
        #expect(test.status == 0, "\(test.stderr)")
        #expect(Set(test.apt) == Set(try await Self.list("test")), "apt-get was asked for \(test.apt)")
    }
}

/// Mistakes get help: a mistyped command names the nearest, names from other tools map to
/// what vidfx calls them, and a far-off word gets no guess.
@Suite struct MistakeTests {
    @Test(arguments: [
        (["aply", "testmedia/h264-30fps.mp4", "-o", "x.mp4"], "unknown command 'aply'; did you mean 'apply'?"),
        (["help", "aply"], "unknown command 'aply'; did you mean 'apply'?"),
        (["dupm", "testmedia/h264-30fps.mp4"], "unknown command 'dupm'; did you mean 'dump'?"),
        (["scens", "testmedia/h264-30fps.mp4"], "unknown command 'scenes'"),
        (["testmedia/h264-30fps.mp4", "-e", "sepia"], "unknown command 'testmedia/h264-30fps.mp4'; the command comes first"),
        (["frobnicate"], "unknown command 'frobnicate' (vidfx --help lists the commands)"),
    ])
    func unknownCommands(arguments: [String], expected: String) async throws {
        let r = try await CLI.run(arguments)
        #expect(r.status == 64, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        if expected == "unknown command 'scenes'" {
            #expect(r.stderr.contains("unknown command 'scens'; did you mean 'scenes'?"), "\(r.stderr)")
        } else {
            #expect(r.stderr.contains(expected), "\(r.stderr)")
        }
    }

    @Test(arguments: [
        ("gblur", "use 'blur:sigma="),
        ("boxblur", "'blur:mode=box"),
        ("civignette", "use 'vignette'"),
        ("unsharp", "use 'sharpen'"),
        ("drawtext", "use 'text:text=…'"),
        ("eq", "'colorcontrols'"),
        ("scale", "--size"),
        ("lut3d", "'lut:file="),
        ("sepa", "did you mean 'sepia'?"),
        ("kaleidoscop", "did you mean 'kaleidoscope'?"),
    ])
    func effectNames(name: String, expected: String) async throws {
        let r = try await CLI.run(["effects", name])
        #expect(r.status != 0)
        #expect(r.stderr.contains("unknown effect '\(name)'") && r.stderr.contains(expected), "\(r.stderr)")
        #expect(!r.stderr.contains("did you mean 'lut'"), "\(r.stderr)")
    }

    @Test func aFarOffNameGetsNoGuess() async throws {
        let r = try await CLI.run(["effects", "zzzz"])
        #expect(r.stderr.contains("unknown effect 'zzzz'") && !r.stderr.contains("did you mean"), "\(r.stderr)")
    }

    /// A command spelt right is that command, not a guess: `help probe` prints probe's
    /// own help, and `probe` on a clip describes it.
    @Test func theRightCommandStillRuns() async throws {
        let r = try await CLI.run(["help", "probe"])
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(r.status == 0 && r.stderr.isEmpty && text.contains("USAGE: vidfx probe ") && !text.contains("did you mean"), "\(r.stderr)")
        let probe = try await CLI.run(["probe", CLI.media("h264-30fps.mp4")])
        #expect(probe.status == 0 && String(decoding: probe.stdout, as: UTF8.self).contains("320x240"), "\(probe.stderr)")
    }
}
