import Foundation
import FrameCore

/// The bounded hand-off between the decode thread and the consumer. The producer
/// blocks when it is full (so decoding runs at most `capacity` frames ahead and
/// memory stays flat); the consumer can wait by blocking or by suspending.
final class FrameQueue: @unchecked Sendable {
    enum Item: Sendable {
        case frame(Frame)
        case end(FrameSourceError?)
    }

    private let condition = NSCondition()
    private var slots: [Frame?]
    private var head = 0
    private var count = 0
    private var finished = false
    private var failure: FrameSourceError?
    private var closed = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// The consumer is waiting on an empty queue (what a demand-driven producer waits for).
    private var wanted = false
    let capacity: Int
    /// Capacity 0: the producer makes a frame only once the consumer asks for one
    /// (``awaitDemand()``), so a single frame is in flight. One slot still carries it.
    let demandDriven: Bool

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        demandDriven = capacity == 0
        slots = Array(repeating: nil, count: self.capacity)
    }

    /// Blocks until the consumer waits for a frame. False when the queue was closed.
    func awaitDemand() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !wanted && !closed { condition.wait() }
        return !closed
    }

    /// Adds a frame, waiting for room. Returns false when the consumer has closed the queue.
    func put(_ frame: consuming Frame) -> Bool {
        condition.lock()
        while count >= capacity && !closed { condition.wait() }
        if closed { condition.unlock(); return false }
        slots[(head + count) % capacity] = consume frame  // moved: no reference left here once the consumer wakes
        count += 1
        let w = wakeConsumer()
        condition.unlock()
        w?.resume()
        return true
    }

    /// Marks the end of the stream, with the error that ended it if any.
    func finish(_ error: FrameSourceError?) {
        condition.lock()
        if !finished { finished = true; failure = error }
        let w = wakeConsumer()
        condition.unlock()
        w?.resume()
    }

    /// Consumer side: drop everything and refuse more; wakes both sides.
    func close() {
        condition.lock()
        closed = true
        for i in slots.indices { slots[i] = nil }
        count = 0
        let w = wakeConsumer()
        condition.unlock()
        w?.resume()
    }

    /// Takes the next item, blocking the thread while the queue is empty.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let item = takeLocked() { return item }
            if !wanted { wanted = true; condition.broadcast() }
            condition.wait()
        }
    }

    /// Takes the next item, suspending the task while the queue is empty.
    func take() async -> Item {
        while true {
            if let item = poll() { return item }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in park(c) }
        }
    }

    private func poll() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    /// Resumes `c` at once if there is something to take, else when there is.
    private func park(_ c: CheckedContinuation<Void, Never>) {
        condition.lock()
        let ready = count > 0 || finished || closed
        if !ready {
            waiter = c
            if !wanted { wanted = true; condition.broadcast() }
        }
        condition.unlock()
        // Resumed outside the lock: a task being cancelled holds its own lock while its
        // handler (stop → close) waits for this one.
        if ready { c.resume() }
    }

    private func takeLocked() -> Item? {
        if closed { return .end(nil) }
        if count > 0 {
            let frame = slots[head]!
            slots[head] = nil  // release the buffer as soon as the consumer has it
            head = (head + 1) % capacity
            count -= 1
            wanted = false
            condition.broadcast()  // room for the producer
            return .frame(frame)
        }
        if finished { return .end(failure) }
        return nil
    }

    /// Wakes a blocked consumer, and returns a suspended one for the caller to resume
    /// once it has released the lock (lock held).
    private func wakeConsumer() -> CheckedContinuation<Void, Never>? {
        condition.broadcast()
        defer { waiter = nil }
        return waiter
    }
}
