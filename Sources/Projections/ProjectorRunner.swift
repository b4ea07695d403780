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
    let configuration: PostgresConfiguration
    let state: Mutex<State>
    let wake = DispatchSemaphore(value: 0)
    let projector: Projector
    let logger: Logger

    struct State: ~Copyable {
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
    func advanced(to position: Int64, _ update: ((inout Status) -> Void)? = nil) {
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
            // Events handed over that another projector has written meanwhile are let go of at once: they would hold
            // the room of the events to come.
            for (first, run) in state.handedOver where run.last!.position <= state.status.position {
                state.handedOver[first] = nil
                state.handedOverCount -= run.count
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
}
