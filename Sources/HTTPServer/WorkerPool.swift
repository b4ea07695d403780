import Dispatch
import Foundation
import Synchronization

/// Threads of the server's own that run handlers, so that blocking work (libpq calls) never runs on
/// libmicrohttpd's polling thread or on Swift's cooperative pool. Jobs run in the order they came.
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    let threadCount: Int
    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        var isShutDown = false

        mutating func pop() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// Starts `threads` threads named `name 1`, `name 2`, ...
    init(threads: Int, name: String) {
        threadCount = threads
        for number in 1...threads {
            let started = DispatchSemaphore(value: 0)
            let thread = Thread { [self] in
                // On Linux, Foundation names the system thread only when the name is set on the thread itself,
                // and only once `start()` has recorded which thread that is.
                started.wait()
                Thread.current.name = "\(name) \(number)"
                run()
            }
            // Handlers parse and validate request bodies; give them the main thread's room.
            thread.stackSize = 8 << 20
            thread.start()
            started.signal()
        }
    }

    /// Queues `job`; it is dropped if the pool has shut down.
    func submit(_ job: @escaping Job) {
        let accepted = queue.withLock { queue in
            guard !queue.isShutDown else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
    }

    /// Drops the jobs not yet started; each thread ends once its current job (if any) returns.
    func shutDown() {
        queue.withLock { queue in
            queue.isShutDown = true
            queue.jobs.removeAll()
            queue.head = 0
        }
        for _ in 0..<threadCount { available.signal() }
    }

    private func run() {
        while true {
            available.wait()
            // One signal per queued job, plus one per thread at shutdown: a wake-up finds a job or the end.
            guard let job = queue.withLock({ queue in queue.isShutDown ? nil : queue.pop() }) else { return }
            job()
        }
    }
}
