import EventStore
import Foundation
import Logging
import Postgres
import Synchronization

/// Keeps the projections behind the log: follows the committed, gap-free feed from the checkpoint and projects it in
/// batches, each in one transaction with the checkpoint it advances to, so that every event is projected exactly once
/// whatever is stopped when. One runs at a time per database: each batch takes a transaction-scoped advisory lock, and
/// whoever does not get it waits for the checkpoint to move instead (a batch never applies twice, since the
/// checkpoint is read under the lock).
///
/// A process that appends hands the events it committed over (``handOver(_:)``), and they are projected as they are,
/// without reading them back; everything else (another process's appends, what a restart left) is read from the log.
/// `serve` and `ingest` run it in the background (``start()``); any read of the projections first waits for it to pass
/// the log's head (``awaitProjected(on:)``), and appends are held back while it is too far behind (``admit()``).
public final class ProjectorRunner: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Events projected in one transaction at most.
        public var batchSize: Int
        /// How long a read waits for the projections to pass the log's head, in seconds.
        public var readTimeout: Double
        /// Events the projections may be behind before appends are held back.
        public var maximumLag: Int64
        /// Events handed over by this process kept for the projector at most; past it, appenders wait for room (see
        /// ``ProjectorRunner/handOver(_:)``).
        public var handOverLimit: Int
        /// Seconds between looks at the log for appends by other processes, while nothing wakes the projector.
        public var pollInterval: Double
        /// Seconds a writer waiting for room (``waitForRoom()``) waits while the projector does not move, then gives up.
        public var appendPatience: Double

        public init(
            batchSize: Int = 10_000, readTimeout: Double = 5, maximumLag: Int64 = 200_000, handOverLimit: Int = 20_000,
            pollInterval: Double = 0.2, appendPatience: Double = 60
        ) {
            self.batchSize = max(1, batchSize)
            self.readTimeout = max(0, readTimeout)
            self.maximumLag = max(1, maximumLag)
            self.handOverLimit = max(0, handOverLimit)
            self.pollInterval = max(0.001, pollInterval)
            self.appendPatience = max(0, appendPatience)
        }
    }

    /// What the projector has done, for metrics and readiness.
    public struct Status: Sendable, Equatable {
        /// The checkpoint as last seen.
        public var position: Int64 = 0
        /// The log's head as last seen (from an append of this process or a look at the log).
        public var head: Int64 = 0
        public var batches = 0
        /// Events this projector wrote (not those another wrote meanwhile).
        public var eventsProjected: Int64 = 0
        /// Events projected as handed over, without reading them back from the log.
        public var eventsHandedOver: Int64 = 0
        /// Times a batch found another projector holding the lock, and waited for its checkpoint instead.
        public var waits = 0
        public var errors = 0
        /// The last error, cleared by the next batch that succeeds.
        public var lastError: String?
        /// When the checkpoint last moved, or the projector last found nothing to do.
        public var lastProgress = Date()
        /// When the checkpoint last reached the log's head as then seen.
        public var caughtUpAt = Date()
        /// Appends answered as held back.
        public var appendsHeldBack = 0
        /// Whether it runs in the background (``start()``).
        public var running = false
        /// ``Settings/maximumLag``.
        public var maximumLag: Int64 = 0

        public var lag: Int64 { max(0, head - position) }

        /// How long the projections have been behind the log: 0 when caught up, else the time since they last were.
        public func lagSeconds(now: Date = Date()) -> Double {
            lag == 0 ? 0 : max(0, now.timeIntervalSince(caughtUpAt))
        }

        /// A background projector that is behind and failing, or has not moved for `seconds`.
        public func isStuck(after seconds: Double, now: Date = Date()) -> Bool {
            running && lag > 0 && (lastError != nil || now.timeIntervalSince(lastProgress) > seconds)
        }
    }

    /// Arbitrary, fixed: the advisory lock each batch takes, so that one projector writes at a time.
    static let lockKey: Int64 = 0x6765_6f6c_7072_6f6a

    public let settings: Settings
    private let configuration: PostgresConfiguration
    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)
    private let projector: Projector
    private let logger: Logger

    private struct State: ~Copyable {
        var status = Status()
        /// Committed events of this process, by the position of each run's first event.
        var handedOver: [Int64: [ProjectedEvent]] = [:]
        var handedOverCount = 0
        /// Callers waiting for the checkpoint to reach a position.
        var waiters: [(position: Int64, semaphore: DispatchSemaphore)] = []
        var running = false
        var stopping = false
        var stopped: DispatchSemaphore?
    }

    /// - Parameters:
    ///   - configuration: the database; the background projector opens a connection of its own to it.
    ///   - logger: a line for each batch (debug), for a batch that failed (warning) and for the recovery (info).
    public init(configuration: PostgresConfiguration, settings: Settings = Settings(), logger: Logger = .discarding) {
        self.configuration = configuration
        self.settings = settings
        self.logger = logger
        self.projector = .live
        var state = State()
        state.status.maximumLag = settings.maximumLag
        self.state = Mutex(state)
    }

    public var status: Status { state.withLock { $0.status } }

    // MARK: Handing over

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

    /// The events handed over that follow `position` one by one, at most `limit`; forgets those at or before it.
    private func takeHandedOver(after position: Int64, limit: Int) -> [ProjectedEvent] {
        state.withLock { state in
            for (first, run) in state.handedOver where run.last!.position <= position {
                state.handedOver[first] = nil
                state.handedOverCount -= run.count
            }
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

    // MARK: Projecting

    enum Step: Equatable {
        /// A batch was projected; the checkpoint is now `through`.
        case projected(through: Int64)
        /// Nothing after the checkpoint.
        case caughtUp(at: Int64)
        /// Another projector holds the lock.
        case busy
    }

    /// Waits for the projector's lock until the end of the caller's transaction: no batch is projected until then.
    static func lockProjector(on transaction: Connection) throws {
        try transaction.query("SELECT pg_advisory_xact_lock($1)", [lockKey])
    }

    /// Projects the next batch after the checkpoint in one transaction, when no other projector holds the lock.
    func step(on connection: Connection) throws -> Step {
        let started = DispatchTime.now()
        let (step, handed, projected) = try connection.transaction { transaction -> (Step, Int, Int) in
            guard try transaction.query("SELECT pg_try_advisory_xact_lock($1)", [Self.lockKey]).first!.decode(0, as: Bool.self)
            else { return (.busy, 0, 0) }
            let checkpoint = try Checkpoint.position(on: transaction)
            var events = takeHandedOver(after: checkpoint, limit: settings.batchSize)
            let handed = events.count
            if events.isEmpty {
                events = try Projector.read(after: checkpoint, limit: settings.batchSize, on: transaction)
            }
            guard let last = events.last?.position else { return (.caughtUp(at: checkpoint), 0, 0) }
            try projector.projectHistory(events, on: transaction)
            try Checkpoint.advance(to: last, on: transaction)
            return (.projected(through: last), handed, events.count)
        }
        switch step {
        case .projected(let position):
            let failing = status.lastError != nil
            logger.debug("projected a batch", [
                "through": String(position), "events": String(projected), "handedOver": String(handed),
                "ms": String(format: "%.1f", Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6),
            ])
            if failing { logger.info("the projector projects again", ["through": String(position)]) }
            advanced(to: position) { status in
                status.batches += 1
                status.eventsProjected += Int64(projected)
                status.eventsHandedOver += Int64(handed)
            }
        case .caughtUp(let position):
            if status.lastError != nil { logger.info("the projector projects again", ["through": String(position)]) }
            advanced(to: position) { _ in }
        case .busy:
            state.withLock { $0.status.waits += 1 }
        }
        return step
    }

    /// Notes the checkpoint seen, and wakes the callers waiting for it.
    /// - Parameter update: for a batch of this projector's that succeeded, which clears its last error.
    private func advanced(to position: Int64, _ update: ((inout Status) -> Void)? = nil) {
        let woken = state.withLock { state -> [DispatchSemaphore] in
            let now = Date()
            if position > state.status.position || position >= state.status.head { state.status.lastProgress = now }
            state.status.position = max(state.status.position, position)
            state.status.head = max(state.status.head, position)
            if state.status.position >= state.status.head { state.status.caughtUpAt = now }
            if let update {
                state.status.lastError = nil
                update(&state.status)
            }
            let ready = state.waiters.filter { $0.position <= state.status.position }
            state.waiters.removeAll { $0.position <= state.status.position }
            return ready.map(\.semaphore)
        }
        for semaphore in woken { semaphore.signal() }
    }

    /// Projects on `connection` until the checkpoint reaches `target`, waiting while another projector holds the lock;
    /// gives up at `deadline`.
    /// - Returns: whether the checkpoint reached `target`.
    func catchUp(to target: Int64, on connection: Connection, until deadline: Date) throws -> Bool {
        while true {
            switch try step(on: connection) {
            case .projected(let position) where position >= target, .caughtUp(let position) where position >= target:
                return true
            case .projected:
                continue
            case .caughtUp:
                // The head moved back? Only a log that lost events does so; the caller's target is then not reached.
                return false
            case .busy:
                let position = try Checkpoint.position(on: connection)
                advanced(to: position)
                if position >= target { return true }
                if Date() >= deadline { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            if Date() >= deadline { return false }
        }
    }

    /// Projects everything the log holds now, however long it takes, on `connection`.
    /// - Returns: the log's head as of the call, which the projections now hold.
    @discardableResult
    public func catchUp(on connection: Connection) throws -> Int64 {
        let head = try EventLog().headPosition(on: connection)
        noteHead(head)
        _ = try catchUp(to: head, on: connection, until: .distantFuture)
        return head
    }

    // MARK: Reads and appends

    /// Returns once the projections hold every event committed before the call: the log's head as of now. While the
    /// projector runs in the background it is woken and waited for; otherwise the caller projects on `connection`.
    /// - Throws: ``ProjectionsBehind`` past ``Settings/readTimeout``.
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
        throw ProjectionsBehind(
            kind: .read, events: max(0, head - status.position), bound: settings.readTimeout, lastError: status.lastError)
    }

    private func failed(_ error: any Error) {
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
            throw ProjectionsBehind(
                kind: .append, events: held.lag, bound: Double(settings.maximumLag), lastError: held.lastError)
        }
    }

    /// Waits until the projections are within ``Settings/maximumLag`` events of the log as last seen, for a writer that
    /// would rather slow down than fail; the background projector must be running.
    /// - Throws: ``ProjectionsBehind`` when the projector has not moved for ``Settings/appendPatience`` seconds
    ///   meanwhile (it fails).
    public func waitForRoom() throws {
        var lastMoved = (position: status.position, at: Date())
        while true {
            let status = self.status
            guard status.lag > settings.maximumLag, status.running else { return }
            if status.position != lastMoved.position {
                lastMoved = (status.position, Date())
            } else if Date().timeIntervalSince(lastMoved.at) > settings.appendPatience {
                throw ProjectionsBehind(
                    kind: .append, events: status.lag, bound: Double(settings.maximumLag), lastError: status.lastError)
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.withLock { $0.waiters.append(($0.status.head - settings.maximumLag, semaphore)) }
            wake.signal()
            _ = semaphore.wait(timeout: .now() + 1)
            state.withLock { state in state.waiters.removeAll { $0.semaphore === semaphore } }
        }
    }

    private func noteHead(_ head: Int64) {
        state.withLock { state in
            if state.status.position >= state.status.head && head > state.status.head { state.status.caughtUpAt = Date() }
            state.status.head = max(state.status.head, head)
        }
    }

    // MARK: In the background

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
