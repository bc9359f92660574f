import Foundation

/// A one-machine Slurm cluster (munged, slurmctld, slurmd) in a folder of the test's own,
/// started and stopped with `scripts/slurm-local.sh`, so that the Slurm render script is
/// tested against the real scheduler.
public final class LocalSlurmCluster: Sendable {
    /// The cluster's folder: keys, slurm.conf, state and the daemons' logs.
    public let directory: ScratchDirectory
    private let script: String

    /// What a client (sbatch, squeue, scontrol) needs in its environment to reach the cluster.
    public var environment: [String: String] { ["SLURM_CONF": directory.path("slurm.conf")] }

    private init(script: String, directory: ScratchDirectory) {
        self.script = script
        self.directory = directory
    }

    /// Starts the cluster with `script` (scripts/slurm-local.sh) and waits until its node is idle.
    /// Call ``stop()`` when done with it.
    /// - Throws: ``Subprocess/Failure`` when it does not come up.
    public static func start(script: String) async throws -> LocalSlurmCluster {
        let cluster = LocalSlurmCluster(script: script, directory: try ScratchDirectory("vidfx-slurm"))
        // Through Python (`closingLauncher`): the daemons outlive the script and must not
        // hold Foundation's own descriptors for it, or waiting for the script waits for them.
        do {
            _ = try await Subprocess.output("/usr/bin/env", ["python3", "-c", Self.closingLauncher, script, "start", cluster.directory.url.path])
        } catch {
            await cluster.stop()  // whatever did start
            throw error
        }
        return cluster
    }

    /// Stops its daemons (before its folder goes with this object).
    public func stop() async {
        _ = try? await Subprocess.run("/usr/bin/env", ["python3", "-c", Self.closingLauncher, script, "stop", directory.url.path])
    }

    /// The end of a daemon's log, for a failure message.
    public func log(_ daemon: String) -> String {
        String(((try? String(contentsOfFile: directory.path("\(daemon).log"), encoding: .utf8)) ?? "").suffix(600))
    }

    /// Runs its arguments with no descriptor but the standard three and no signal blocked
    /// (the test runner's threads block SIGTERM, and a child inherits that mask).
    private static let closingLauncher = """
        import signal, subprocess, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        sys.exit(subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL).returncode)
        """
}
