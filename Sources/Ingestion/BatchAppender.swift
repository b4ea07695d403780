import Dispatch
import EventStore
import Foundation
import Postgres
import Synchronization

/// The one way prepared batches are appended, for `ingest` and `POST /v1/events` alike: batches are given in order
/// (``submit(_:atomic:halt:beforeCommit:)``) and written in that order, each in one transaction, by two threads of
/// the appender's own that work at the same time. One decides each batch (stream versions, domain rules, hashes:
/// ``IngestPlanner``) outside the append lock, on a connection of its own, while the other writes the batches decided
/// before it. Small batches that wait together are decided and written together, in one transaction, as if one after
/// the other; should that transaction fail, each is appended again on its own.
///
/// A decision holds only while the batches decided before it are written as decided and nobody else appends. So when
/// a batch fails, or someone else appended (the write checks the log's head under the append lock and writes nothing
/// then), the planner starts afresh, and the batches it decided before are appended under the lock instead, decided
/// there. Atomic batches are decided under the lock, in a transaction of their own; so is every batch when there is
/// no connection to decide on.
package final class BatchAppender: Sendable {
    /// Where the appender's threads take a connection for each decision and each write.
    package struct Connections: Sendable {
        fileprivate let use: @Sendable (_ body: (Connection) throws -> Void) throws -> Void

        /// A connection from `pool` for each use.
        package static func pool(_ pool: ConnectionPool) -> Connections {
            Connections { body in try pool.withConnection(body) }
        }

        /// Always `connection`: the caller's, used by one of the appender's threads alone until ``close()``.
        package static func only(_ connection: Connection) -> Connections {
            Connections { body in try body(connection) }
        }

        fileprivate func with<T>(_ body: (Connection) throws -> T) throws -> T {
            var result: T?
            try use { result = try body($0) }
            return result!
        }
    }

    /// Shared by batches that stop together: once it is set (one of them failed, or their caller stopped), those of
    /// them not yet written are answered ``Halted`` without being written.
    package final class Halt: Sendable {
        private let value = Atomic(false)
        package init() {}
        package var isSet: Bool { value.load(ordering: .acquiring) }
        package func set() { value.store(true, ordering: .releasing) }
    }

    /// The answer of a batch not written because its ``Halt`` was set first.
    package struct Halted: Error {}

    /// A batch given to the appender, answered once written.
    package final class Ticket: Sendable {
        fileprivate let batch: PreparedBatch
        fileprivate let atomic: Bool
        fileprivate let halt: Halt?
        fileprivate let beforeCommit: @Sendable () throws -> Void
        private let answer = Mutex<Result<(IngestReport, Bool), any Error>?>(nil)
        private let answered = DispatchSemaphore(value: 0)

        fileprivate init(_ batch: PreparedBatch, atomic: Bool, halt: Halt?, beforeCommit: @escaping @Sendable () throws -> Void) {
            self.batch = batch
            self.atomic = atomic
            self.halt = halt
            self.beforeCommit = beforeCommit
        }

        fileprivate var isHalted: Bool { halt?.isSet ?? false }

        fileprivate func finish(_ result: Result<(IngestReport, Bool), any Error>) {
            if case .failure = result { halt?.set() }
            answer.withLock { $0 = result }
            answered.signal()
        }

        /// Waits until the batch is written: its answers once committed, and whether it was decided ahead of the
        /// append lock. Throws why it was not written; ``Halted`` when its halt was set before.
        package func wait() throws -> (report: IngestReport, decidedAhead: Bool) {
            answered.wait()
            answered.signal()  // answered for good: a second wait returns at once
            return try answer.withLock { $0! }.get()
        }
    }

    private let waiting: Waiting
    private let finished = DispatchGroup()

    /// - Parameters:
    ///   - deciding: where batches are decided ahead of the lock: the same server as `writing`, outside any
    ///     transaction, so that it sees each batch as soon as it commits. Nil: every batch is decided under the lock.
    ///   - decidedAhead: how many decided batches may wait while another is written.
    ///   - joinedEvents: batches that wait together are joined up to this many items, unless one alone holds more.
    ///   - remembering: how many stream heads and terminal bindings the planner keeps, and how many heads the writer
    ///     keeps for the batches it decides under the lock; past it, what has not been used lately is read again.
    package init(
        service: IngestService, deciding: Connections?, writing: Connections, decidedAhead: Int, joinedEvents: Int,
        remembering: Int
    ) {
        let waiting = Waiting()
        let decided = BatchQueue<Decided>(capacity: max(1, decidedAhead))
        self.waiting = waiting
        let handover = Handover()
        let decider = Decider(
            waiting: waiting, decided: decided, connections: deciding, handover: handover,
            // Decided and perhaps not committed while the next is decided: the batches waiting and the one written.
            inFlight: max(1, decidedAhead) + 1, remembering: remembering, joinedEvents: joinedEvents)
        let writer = Writer(
            service: service, decided: decided, connections: writing, handover: handover, remembering: remembering)
        Self.start(decider.run, finished: finished)
        Self.start(writer.run, finished: finished)
    }

    deinit {
        waiting.close()
    }

    private static func start(_ body: @escaping @Sendable () -> Void, finished: DispatchGroup) {
        finished.enter()
        let thread = Thread {
            body()
            finished.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Gives the next batch to append; its answer comes through the ticket.
    /// - Parameters:
    ///   - atomic: all or nothing, decided under the lock in a transaction of its own.
    ///   - halt: shared with the batches it stops together with; set once it fails.
    ///   - beforeCommit: runs inside the transaction right before COMMIT; what it throws rolls the batch back and is
    ///     its answer.
    package func submit(
        _ batch: PreparedBatch, atomic: Bool = false, halt: Halt? = nil, beforeCommit: @escaping @Sendable () throws -> Void = {}
    ) -> Ticket {
        let ticket = Ticket(batch, atomic: atomic, halt: halt, beforeCommit: beforeCommit)
        waiting.put(ticket)
        return ticket
    }

    /// Takes no more batches, answers those given, and returns once both threads are done with their connections.
    package func close() {
        waiting.close()
        finished.wait()
    }
}

/// The batches given and not yet taken to be decided, oldest first.
private final class Waiting: @unchecked Sendable {
    private let condition = NSCondition()
    private var tickets: [BatchAppender.Ticket] = []
    private var closed = false

    func put(_ ticket: BatchAppender.Ticket) {
        condition.lock()
        defer { condition.unlock() }
        tickets.append(ticket)
        condition.signal()
    }

    func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.signal()
    }

    /// Waits for the next batch, and takes the batches waiting after it that join it: up to `joinedEvents` items in
    /// all, none atomic. Nil once closed and empty.
    func takeJoined(upTo joinedEvents: Int) -> [BatchAppender.Ticket]? {
        condition.lock()
        defer { condition.unlock() }
        while tickets.isEmpty && !closed { condition.wait() }
        guard let first = tickets.first else { return nil }
        var count = 1
        var events = first.batch.count
        if !first.atomic {
            while count < tickets.count, !tickets[count].atomic, events + tickets[count].batch.count <= joinedEvents {
                events += tickets[count].batch.count
                count += 1
            }
        }
        defer { tickets.removeFirst(count) }
        return Array(tickets.prefix(count))
    }
}

/// Batches decided together, with their decision, or why deciding failed (nil: to be appended under the lock), and
/// the generation of the planner that decided them.
private struct Decided: Sendable {
    let tickets: [BatchAppender.Ticket]
    let decision: Result<DecidedBatch, any Error>?
    let generation: Int
}

/// What the decider needs to know of the writer: whether the batches decided so far may still be written as decided
/// (their generation is the current one), and when everything decided so far is written.
private final class Handover: @unchecked Sendable {
    private let condition = NSCondition()
    private var generation = 0
    private var unwritten = 0

    var current: Int {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    /// The batches decided so far may not be written as decided: the planner is to start afresh.
    func invalidate() {
        condition.lock()
        defer { condition.unlock() }
        generation += 1
    }

    func given() {
        condition.lock()
        defer { condition.unlock() }
        unwritten += 1
    }

    func written() {
        condition.lock()
        defer { condition.unlock() }
        unwritten -= 1
        if unwritten == 0 { condition.broadcast() }
    }

    /// Waits until every batch given to the writer is written, and returns the generation then.
    func drained() -> Int {
        condition.lock()
        defer { condition.unlock() }
        while unwritten > 0 { condition.wait() }
        return generation
    }
}

/// Decides the batches waiting, in order, and queues them for the writer.
private struct Decider: Sendable {
    let waiting: Waiting
    let decided: BatchQueue<Decided>
    let connections: BatchAppender.Connections?
    let handover: Handover
    let inFlight: Int
    let remembering: Int
    let joinedEvents: Int

    func run() {
        var planner = IngestPlanner(inFlight: inFlight, capacity: remembering)
        var plannerGeneration = handover.current
        while let tickets = waiting.takeJoined(upTo: joinedEvents) {
            var current = handover.current
            var decision: Result<DecidedBatch, any Error>?
            if let connections, !tickets[0].atomic, !tickets.contains(where: \.isHalted) {
                if plannerGeneration != current {
                    // Afresh on the log as it is once the batches given before are written: a planner that read it
                    // earlier would decide on a log without them, and its decisions would not hold either.
                    current = handover.drained()
                    planner = IngestPlanner(inFlight: inFlight, capacity: remembering)
                    plannerGeneration = current
                }
                let batch = tickets.count == 1 ? tickets[0].batch : PreparedBatch(joining: tickets.map(\.batch))
                decision = Result { try connections.with { [planner] in try planner.decide(batch, reading: $0) } }
            }
            handover.given()
            decided.put(Decided(tickets: tickets, decision: decision, generation: current))
        }
        decided.finish(readError: nil)
    }
}

/// Writes the decided batches in order: as decided while the decision holds, else each under the append lock.
private struct Writer: Sendable {
    let service: IngestService
    let decided: BatchQueue<Decided>
    let connections: BatchAppender.Connections
    let handover: Handover
    let remembering: Int

    func run() {
        // The heads of the streams this writer appended to under the lock, for the next it appends there.
        let cache = StreamHeadCache(capacity: remembering)
        while let next = decided.take() {
            write(next, cache: cache)
            handover.written()
        }
    }

    private func write(_ next: Decided, cache: StreamHeadCache) {
        let tickets = next.tickets
        switch next.decision {
        case .failure(let error)?:
            // Answered in turn, after the batches given before it were written.
            handover.invalidate()
            for ticket in tickets { ticket.finish(.failure(error)) }
            return
        case .success(let decision)? where next.generation == handover.current && !tickets.contains(where: \.isHalted):
            do {
                let written = try connections.with { connection in
                    try service.write(decision, on: connection, beforeCommit: { for ticket in tickets { try ticket.beforeCommit() } })
                }
                if let report = written {
                    var start = 0
                    for ticket in tickets {
                        var part = report
                        part.results = Array(report.results[start..<start + ticket.batch.count])
                        start += ticket.batch.count
                        ticket.finish(.success((part, true)))
                    }
                    return
                }
            } catch {
                handover.invalidate()
                // Alone, the batch failed for itself; together, each is appended again on its own below.
                if tickets.count == 1 {
                    tickets[0].finish(.failure(error))
                    return
                }
            }
        case .success?, nil:
            break
        }
        // Not written as decided: the batches decided after it assumed it would be.
        if next.decision != nil { handover.invalidate() }
        for ticket in tickets {
            if ticket.isHalted {
                ticket.finish(.failure(BatchAppender.Halted()))
                continue
            }
            let result = Result {
                try connections.with { connection in
                    try service.append(
                        ticket.batch, atomic: ticket.atomic, cache: cache, on: connection, beforeCommit: ticket.beforeCommit)
                }
            }
            // Appended without a decision (atomic), what it appended is unknown to the planner, whose decisions of the
            // batches after it then do not hold.
            if next.decision == nil, case .success(let report) = result, report.count(.appended) > 0 { handover.invalidate() }
            ticket.finish(result.map { ($0, false) })
        }
    }
}
