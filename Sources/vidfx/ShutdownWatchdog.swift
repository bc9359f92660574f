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
    /// Set by `end()`: a grace period already running then does nothing when it lapses.
    /// (Cancelling the signal sources alone left it scheduled, and it could end a process
    /// that had finished its shutdown and was only slow to exit, such as under
    /// LeakSanitizer's scan at exit.)
    private var ended = false

    private let act: @Sendable (Int32) -> Void
    private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// `schedule` runs its work once the grace has passed; tests pass their own.
    init(grace: Duration, watchSignals: Bool = true,
         schedule: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil,
         act: @escaping @Sendable (Int32) -> Void) {
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        self.act = act
        self.schedule = schedule ?? { work in DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work) }
        guard watchSignals else { return }
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.signalled(sig) }
            source.resume()
            sources.append(source)
        }
    }

    /// A signal came: the first one starts the grace period.
    func signalled(_ sig: Int32) {
        guard arm() else { return }
        schedule { [weak self] in
            guard let self, !self.hasEnded else { return }
            self.act(sig)
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

    private var hasEnded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ended
    }

    /// Stops watching (the process is ending normally), a grace period already started too.
    func end() {
        lock.lock()
        ended = true
        lock.unlock()
        for source in sources { source.cancel() }
        sources = []
    }
}
