import Foundation

/// A worker thread behind a small bounded queue: the producer hands items over and goes
/// on with the next while the worker processes this one (the encoder compresses frame
/// k while the caller renders frame k+1). The first failure stops the worker, drops
/// what is queued, and is reported to the producer.
final class EncodeQueue<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private let work: (Item) throws(SinkError) -> Void
    private var queue: [Item] = []
    private var closed = false
    private var done = false
    private var failure: SinkError?
    private var processed = 0

    /// Starts the worker thread, named `name`, running `work` on each item in order.
    init(name: String, capacity: Int, work: @escaping (Item) throws(SinkError) -> Void) {
        self.capacity = capacity
        self.work = work
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// The first failure, if any.
    var error: SinkError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Queues an item, waiting while the queue is full; false once the worker has failed.
    func submit(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil && !closed { condition.wait() }
        guard failure == nil, !closed else { return false }
        queue.append(item)
        condition.broadcast()
        return true
    }

    /// Waits until every queued item is processed (or dropped after a failure) and the
    /// thread has ended. Returns how many were processed. `discard` drops what is queued.
    @discardableResult
    func finish(discard: Bool = false) -> Int {
        condition.lock()
        closed = true
        if discard { queue.removeAll() }
        condition.broadcast()
        while !done { condition.wait() }
        condition.unlock()
        return processed
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty {
                done = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let item = queue.removeFirst()
            condition.broadcast()
            condition.unlock()
            do throws(SinkError) {
                try work(item)
                condition.lock()
                processed += 1
                condition.unlock()
            } catch {
                condition.lock()
                failure = error
                queue.removeAll()
                closed = true
                condition.broadcast()
                condition.unlock()
            }
        }
    }
}
