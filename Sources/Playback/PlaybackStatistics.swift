/// How realtime delivery went: ticks shown, ticks dropped because the consumer
/// was late, and how late the shown ones were.
public struct PlaybackStatistics: Sendable, Equatable {
    /// Ticks handed to the consumer.
    public var delivered = 0
    /// Ticks skipped because the next tick was already due (realtime only).
    public var dropped = 0
    /// Mean delay between a tick's due time and its delivery (realtime only).
    public var meanLateness: Duration = .zero
    /// 99th-percentile delay, to 0.1 ms (realtime only).
    public var p99Lateness: Duration = .zero
    /// Largest delay (realtime only).
    public var maxLateness: Duration = .zero

    /// Figures to start from (all zero by default).
    public init(delivered: Int = 0, dropped: Int = 0) {
        self.delivered = delivered
        self.dropped = dropped
    }
}

/// Collects lateness in 0.1 ms buckets up to 2 s (p99 without keeping samples, so
/// memory stays flat however long playback runs).
public struct LatenessHistogram: Sendable {
    private var buckets = [Int](repeating: 0, count: 20_001)
    private var count = 0
    private var total: Duration = .zero
    private var maximum: Duration = .zero

    /// An empty histogram.
    public init() {}

    /// Adds one delay (negative counts as on time).
    public mutating func record(_ lateness: Duration) {
        let l = max(lateness, .zero)
        let tenthsOfMs = Int(l / .microseconds(100))
        buckets[min(tenthsOfMs, buckets.count - 1)] += 1
        count += 1
        total += l
        maximum = max(maximum, l)
    }

    /// Writes mean, p99 and maximum into `stats`.
    public func fill(_ stats: inout PlaybackStatistics) {
        guard count > 0 else { return }
        stats.meanLateness = total / count
        stats.maxLateness = maximum
        let target = Int((Double(count) * 0.99).rounded(.up))
        var seen = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            if seen >= target { stats.p99Lateness = .microseconds(100 * i); break }
        }
    }
}
