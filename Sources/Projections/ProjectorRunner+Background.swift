import EventStore
import Foundation
import Postgres

/// The projector on a thread of its own, as `serve` and `ingest` run it.
extension ProjectorRunner {
    /// Starts projecting on a thread of its own, until ``stop()``: woken by ``handOver(_:)`` and by reads, and every
    /// ``Settings/pollInterval`` otherwise, to follow other processes' appends. Errors are counted and retried after
    /// a pause, on a new connection.
    public func start() {
        let done = DispatchSemaphore(value: 0)
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            state.status.running = true
            state.stopping = false
            state.stopped = done
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stops the background projector after its current batch, and waits for it.
    public func stop() {
        let done = state.withLock { state -> DispatchSemaphore? in
            guard state.running else { return nil }
            state.stopping = true
            return state.stopped
        }
        wake.signal()
        done?.wait()
        let woken = state.withLock { state -> [DispatchSemaphore] in
            state.running = false
            state.status.running = false
            defer { state.waiters = [] }
            return state.waiters.map(\.semaphore)
        }
        for semaphore in woken { semaphore.signal() }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func run() {
        var connection: Connection?
        defer { connection?.close() }
        var pause = 0.1
        while !isStopping {
            do {
                if connection == nil { connection = try Connection.connect(configuration) }
                switch try step(on: connection!) {
                case .projected:
                    pause = 0.1
                    continue
                case .caughtUp:
                    pause = 0.1
                    _ = wake.wait(timeout: .now() + settings.pollInterval)
                    noteHead(try EventLog().headPosition(on: connection!))
                case .busy:
                    advanced(to: try Checkpoint.position(on: connection!))
                    _ = wake.wait(timeout: .now() + min(settings.pollInterval, 0.05))
                    noteHead(try EventLog().headPosition(on: connection!))
                }
            } catch {
                failed(error)
                connection?.close()
                connection = nil
                _ = wake.wait(timeout: .now() + pause)
                pause = min(pause * 2, 5)
            }
        }
    }
}
