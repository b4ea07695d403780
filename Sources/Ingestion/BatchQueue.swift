import Dispatch
import Synchronization

/// A bounded hand-over between two stages.
final class BatchQueue<Batch: Sendable>: Sendable {
    private struct State {
        var batches: [Batch] = []
        var finished = false
        var cancelled = false
        var readError: String?
        /// Batches used up downstream, left for the producing thread to release.
        var spent: [any Sendable] = []
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let slots: DispatchSemaphore
    private let items = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = capacity
        slots = DispatchSemaphore(value: capacity)
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Waits for room, then queues the batch; once cancelled, drops it.
    func put(_ batch: Batch) {
        slots.wait()
        let queued = state.withLock { state in
            if state.cancelled { return false }
            state.batches.append(batch)
            return true
        }
        if queued { items.signal() } else { slots.signal() }
    }

    func finish(readError: String?) {
        state.withLock {
            $0.finished = true
            $0.readError = readError
        }
        items.signal()
    }

    var readError: String? { state.withLock { $0.readError } }

    /// The next batch, or nil when the producer has finished and everything was taken, or the queue is cancelled.
    func take() -> Batch? {
        while true {
            items.wait()
            let next: Batch?? = state.withLock { state in
                if state.cancelled { return .some(nil) }
                if !state.batches.isEmpty { return .some(state.batches.removeFirst()) }
                return state.finished ? .some(nil) : nil
            }
            if let next {
                if next != nil { slots.signal() } else { items.signal() }
                return next
            }
        }
    }

    /// Hands what a stage is done with over to be released on the producing thread: freeing a batch's objects takes
    /// time the database would otherwise wait for on the writing thread.
    func recycle(_ spent: any Sendable) {
        state.withLock { $0.spent.append(spent) }
    }

    /// Releases, on the calling thread, what was handed over with ``recycle(_:)``.
    func releaseSpent() {
        var spent: [any Sendable] = []
        state.withLock { swap(&spent, &$0.spent) }
        spent.removeAll()  // here, outside the lock
    }

    /// Stops both sides early (a stage failed): frees a producer waiting for a slot and a consumer waiting for a
    /// batch. A semaphore must not be freed with less than it started with, so the slots of the batches left in the
    /// queue are given back here.
    func cancel() {
        let alreadyCancelled = state.withLock { state in
            defer { state.cancelled = true }
            return state.cancelled
        }
        guard !alreadyCancelled else { return }
        for _ in 0..<capacity { slots.signal() }
        items.signal()  // a consumer waiting for a batch gets nil
    }
}
