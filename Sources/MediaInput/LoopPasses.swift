public import FrameCore
import Synchronization

/// Where each pass of a looped clip begins on the output timeline: the video reader
/// records a pass as it starts it, before any of its frames is delivered, and the audio
/// looks a frame's pass up here, so that it restarts with the pictures.
///
/// Only the latest ``remembered`` passes are kept (memory stays flat however many
/// loops): the audio is never further behind the video than a few frames.
public final class LoopPasses: Sendable {
    /// How many of the latest passes are kept.
    public static let remembered = 256

    private struct Table {
        var latest = 0
        var starts: [Int: Rational] = [0: Rational(0)]
    }
    private let table = Mutex(Table())

    /// An empty table: pass 0 at time 0.
    public init() {}

    /// Forgets every pass but the first (a new render of the same input).
    package func reset() { table.withLock { $0 = Table() } }

    /// Records that pass `pass` begins at output time `start`.
    package func begin(_ pass: Int, at start: Rational) {
        table.withLock { t in
            t.starts[pass] = start
            t.latest = max(t.latest, pass)
            if t.starts.count > LoopPasses.remembered {
                t.starts = t.starts.filter { $0.key > t.latest - LoopPasses.remembered }
            }
        }
    }

    /// Where pass `pass` begins on the output timeline (0 for a pass not recorded).
    public func start(of pass: Int) -> Rational {
        table.withLock { $0.starts[pass] ?? Rational(0) }
    }
}
