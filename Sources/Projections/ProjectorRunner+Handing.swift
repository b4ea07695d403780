import EventStore
import Foundation
import Postgres

/// The events this process appended, handed to its projector, and the waits of readers and appenders for it.
extension ProjectorRunner {
    /// Events this process has just committed, with their positions, to project without reading them back.
    ///
    /// While the events kept already fill ``Settings/handOverLimit``, and the projector runs in the background and
    /// does not fail, the caller waits for it to make room, up to ``handOverWait`` seconds: an appender slows down to
    /// the projector's pace rather than making it read what it appended back from the log. Past that, or when the
    /// projector does not run, the events are left to be read from the log.
    public func handOver(_ events: [ProjectedEvent]) {
        guard let first = events.first, let last = events.last else { return }
        let deadline = DispatchTime.now() + Self.handOverWait
        while true {
            let waiter = state.withLock { state -> DispatchSemaphore? in
                state.status.head = max(state.status.head, last.position)
                guard last.position > state.status.position else { return nil }
                if state.handedOverCount + events.count <= settings.handOverLimit {
                    state.handedOver[first.position] = events
                    state.handedOverCount += events.count
                    return nil
                }
                guard state.running, state.status.lastError == nil else { return nil }
                let semaphore = DispatchSemaphore(value: 0)
                state.waiters.append((state.status.position + 1, semaphore))
                return semaphore
            }
            wake.signal()
            guard let waiter else { return }
            if waiter.wait(timeout: deadline) == .timedOut {
                state.withLock { state in state.waiters.removeAll { $0.semaphore === waiter } }
                return
            }
        }
    }

    /// The longest an appender waits for room to hand its events over.
    static let handOverWait = DispatchTimeInterval.seconds(5)

    /// The events handed over that follow `position` one by one, at most `limit` (those at or before it were let go
    /// of as the checkpoint passed them).
    func takeHandedOver(after position: Int64, limit: Int) -> [ProjectedEvent] {
        state.withLock { state in
            var taken: [ProjectedEvent] = []
            var next = position + 1
            while taken.count < limit, let (first, run) = state.handedOver.first(where: { $0.key <= next && $0.value.last!.position >= next }) {
                let start = Int(next - first)
                let end = min(run.count, start + (limit - taken.count))
                taken += run[start..<end]
                next = run[end - 1].position + 1
                if end == run.count {
                    state.handedOver[first] = nil
                    state.handedOverCount -= run.count
                }
            }
            return taken
        }
    }

    /// Returns once the projections hold every event committed before the call: the log's head as of now. While the
    /// projector runs in the background it is woken and waited for; otherwise the caller projects on `connection`.
    /// - Throws: ``ProjectionError/behind(_:)`` past ``Settings/readTimeout``.
    public func awaitProjected(on connection: Connection) throws {
        let head = try EventLog().headPosition(on: connection)
        noteHead(head)
        let deadline = Date(timeIntervalSinceNow: settings.readTimeout)
        let (reached, running, waiter) = state.withLock { state -> (Bool, Bool, DispatchSemaphore?) in
            if state.status.position >= head { return (true, state.running, nil) }
            guard state.running else { return (false, false, nil) }
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters.append((head, semaphore))
            return (false, true, semaphore)
        }
        if reached { return }
        if running, let waiter {
            wake.signal()
            if waiter.wait(timeout: .now() + settings.readTimeout) == .success { return }
            state.withLock { state in state.waiters.removeAll { $0.semaphore === waiter } }
            // The background projector may be failing while another process projects: the checkpoint tells.
            let position = try Checkpoint.position(on: connection)
            advanced(to: position)
            if position >= head { return }
        } else {
            do {
                if try catchUp(to: head, on: connection, until: deadline) { return }
            } catch let error as PostgresError where !error.isConnectionFailure && error.sqlState != nil {
                // The database answers, but will not take the projections' rows: say so rather than the bare error.
                failed(error)
            }
        }
        let status = self.status
        throw ProjectionError.behind(ProjectionsBehind(
            kind: .read, events: max(0, head - status.position), bound: settings.readTimeout, lastError: status.lastError))
    }

    func failed(_ error: any Error) {
        let status = state.withLock { state in
            state.status.errors += 1
            state.status.lastError = "\(error)"
            return state.status
        }
        logger.warning("a batch of the projector failed; it is tried again", [
            "error": "\(error)", "checkpoint": String(status.position), "lagEvents": String(status.lag),
            "errors": String(status.errors),
        ])
    }

    /// Throws when the projections are more than ``Settings/maximumLag`` events behind the log as last seen, while the
    /// projector runs in the background (otherwise reads project, and only they).
    public func admit() throws {
        let held = state.withLock { state -> Status? in
            guard state.running, state.status.lag > settings.maximumLag else { return nil }
            state.status.appendsHeldBack += 1
            return state.status
        }
        if let held {
            wake.signal()
            throw ProjectionError.behind(ProjectionsBehind(
                kind: .append, events: held.lag, bound: Double(settings.maximumLag), lastError: held.lastError))
        }
    }

    /// Waits until the projections are within ``Settings/maximumLag`` events of the log as last seen, for a writer that
    /// would rather slow down than fail; the background projector must be running.
    /// - Throws: ``ProjectionError/behind(_:)`` when the projector has not moved for ``Settings/appendPatience`` seconds
    ///   meanwhile (it fails).
    public func waitForRoom() throws {
        var lastMoved = (position: status.position, at: Date())
        while true {
            let status = self.status
            guard status.lag > settings.maximumLag, status.running else { return }
            if status.position != lastMoved.position {
                lastMoved = (status.position, Date())
            } else if Date().timeIntervalSince(lastMoved.at) > settings.appendPatience {
                throw ProjectionError.behind(ProjectionsBehind(
                    kind: .append, events: status.lag, bound: Double(settings.maximumLag), lastError: status.lastError))
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.withLock { $0.waiters.append(($0.status.head - settings.maximumLag, semaphore)) }
            wake.signal()
            _ = semaphore.wait(timeout: .now() + 1)
            state.withLock { state in state.waiters.removeAll { $0.semaphore === semaphore } }
        }
    }

    func noteHead(_ head: Int64) {
        state.withLock { state in
            if state.status.position >= state.status.head && head > state.status.head { state.status.caughtUpAt = Date() }
            state.status.head = max(state.status.head, head)
        }
    }
}
