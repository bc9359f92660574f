import Dispatch
import Foundation

/// A last resort after SIGINT or SIGTERM: when the process has not ended `grace` after the
/// first signal (a handler that does not return, a shutdown that waits on something that
/// never comes), `act` runs with the signal's number, and is expected to exit. The signals
/// are still delivered to whatever else handles them (the server's graceful shutdown).
final class ShutdownWatchdog: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var armed = false

    init(grace: Duration, act: @escaping @Sendable (Int32) -> Void) {
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self, self.arm() else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { act(sig) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True the first time only.
    private func arm() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if armed { return false }
        armed = true
        return true
    }

    /// Stops watching (the process is ending normally).
    func end() {
        for source in sources { source.cancel() }
        sources = []
    }
}
