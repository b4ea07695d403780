import Dispatch
import Ingestion
import Postgres
import Synchronization

/// Appends the batches of `POST /v1/events` one after another, as `ingest` appends a file's: each batch is decided
/// (stream versions, domain rules, hashes: ``IngestPlanner``) outside the append lock, while the batches before it
/// are being written, and then written in the order decided. Handlers read, validate and assess their batches at the
/// same time on their own threads, and bring them here. Small batches that arrive while another is being decided are
/// decided and written together, in one transaction, as if one after the other; should that transaction fail, each
/// is appended again on its own.
///
/// A decision holds only while the batches decided before it are written as decided and nobody else appends. So
/// when a batch fails, is decided again under the lock (atomic, or someone else appended: the write checks the log's
/// head under the lock and writes nothing then), the planner starts afresh, and the batches it decided before are
/// appended under the lock instead.
final class BatchWriter: Sendable {
    /// Decisions made and not yet written, at most: the planner keeps what they change.
    static let decidedAhead = 4
    /// Batches decided together hold at most this many items, unless one alone holds more. Small batches that
    /// arrive together are joined up to a size at which a transaction's fixed costs no longer matter; larger ones
    /// are written alone, so that their clients' next batches are read while one is written, instead of all the
    /// clients of a joined batch waiting for it together.
    static let joinedEvents = 1000
    /// Stream heads and terminal bindings the planner keeps between batches, at most: about what the last ten joined
    /// batches touched. The server runs for months and takes batches from every client, so it keeps those of the
    /// streams it decided lately, which a client's retry or next batch finds, and reads the rest again: its memory
    /// stays the same however many streams the log holds.
    static let plannerCapacity = 10 * joinedEvents

    private let service: IngestService
    private let pool: ConnectionPool
    private let planning = Mutex(Planning())
    /// Batches waiting to be decided, oldest first.
    private let waiting = Mutex<[Job]>([])
    /// Bumped whenever the batches decided so far may not be written as decided.
    private let generation = Atomic(0)
    private let turns = Mutex(Turns())
    private let slots = DispatchSemaphore(value: BatchWriter.decidedAhead)

    private struct Planning: ~Copyable {
        var planner = IngestPlanner(inFlight: BatchWriter.decidedAhead, capacity: BatchWriter.plannerCapacity)
        var generation = 0
        var nextTurn = 0
    }

    /// Whose turn it is to write, and who waits for theirs.
    private struct Turns {
        var current = 0
        var waiting: [Int: DispatchSemaphore] = [:]
    }

    /// One handler's batch, answered by whoever writes it.
    private final class Job: Sendable {
        let batch: PreparedBatch
        let beforeCommit: @Sendable () throws -> Void
        private let answer = Mutex<Result<(IngestReport, Bool), any Error>?>(nil)
        private let answered = DispatchSemaphore(value: 0)

        init(_ batch: PreparedBatch, beforeCommit: @escaping @Sendable () throws -> Void) {
            self.batch = batch
            self.beforeCommit = beforeCommit
        }

        func finish(_ result: Result<(IngestReport, Bool), any Error>) {
            answer.withLock { $0 = result }
            answered.signal()
        }

        func wait() throws -> (IngestReport, Bool) {
            answered.wait()
            return try answer.withLock { $0! }.get()
        }
    }

    /// Batches decided together, with their decision (nil: to be appended under the lock) and their turn.
    private struct Decided {
        let jobs: [Job]
        let decision: DecidedBatch?
        let generation: Int
        let turn: Int
    }

    init(service: IngestService, pool: ConnectionPool) {
        self.service = service
        self.pool = pool
    }

    /// Appends `batch` and answers it once committed, with whether it was decided ahead of the append lock. An
    /// atomic batch is decided under the lock in a transaction of its own.
    /// - Parameter beforeCommit: runs inside the transaction right before COMMIT; what it throws rolls the batch
    ///   back and is rethrown.
    func append(
        _ batch: PreparedBatch, atomic: Bool, beforeCommit: @escaping @Sendable () throws -> Void
    ) throws -> (report: IngestReport, decidedAhead: Bool) {
        let job = Job(batch, beforeCommit: beforeCommit)
        if atomic {
            slots.wait()
            defer { slots.signal() }
            let turn = planning.withLock { planning in
                defer { planning.nextTurn += 1 }
                return planning.nextTurn
            }
            write(Decided(jobs: [job], decision: nil, generation: 0, turn: turn), atomic: true)
        } else {
            waiting.withLock { $0.append(job) }
            slots.wait()
            defer { slots.signal() }
            // Decides what waits, this batch among it unless someone deciding took it meanwhile.
            if let decided = decideWaiting() { write(decided, atomic: false) }
        }
        return try job.wait()
    }

    /// Takes the batches waiting and decides them together as the next batch; nil when none wait. A failure to
    /// decide answers them.
    private func decideWaiting() -> Decided? {
        planning.withLock { planning -> Decided? in
            let jobs = waiting.withLock { waiting -> [Job] in
                var events = 0
                let count = waiting.prefix { job in
                    defer { events += job.batch.count }
                    return events == 0 || events + job.batch.count <= Self.joinedEvents
                }.count
                defer { waiting.removeFirst(count) }
                return Array(waiting.prefix(count))
            }
            guard !jobs.isEmpty else { return nil }
            let current = generation.load(ordering: .acquiring)
            if planning.generation != current {
                planning.planner = IngestPlanner(inFlight: Self.decidedAhead, capacity: Self.plannerCapacity)
                planning.generation = current
            }
            let batch = jobs.count == 1 ? jobs[0].batch : PreparedBatch(joining: jobs.map(\.batch))
            do {
                let decision = try pool.withConnection { [planner = planning.planner] in
                    try planner.decide(batch, reading: $0)
                }
                defer { planning.nextTurn += 1 }
                return Decided(jobs: jobs, decision: decision, generation: current, turn: planning.nextTurn)
            } catch {
                invalidate()
                for job in jobs { job.finish(.failure(error)) }
                return nil
            }
        }
    }

    /// Writes decided batches in their turn, as decided when the decision still holds, else each under the lock.
    /// A decided batch passes the turn on once it holds the append lock, so that the next starts its transaction
    /// meanwhile and waits for the lock there (``IngestService/write(_:on:holds:locked:beforeCommit:)``).
    private func write(_ decided: Decided, atomic: Bool) {
        waitForTurn(decided.turn)
        defer { endTurn(decided.turn) }
        if let decision = decided.decision, decided.generation == generation.load(ordering: .acquiring) {
            let jobs = decided.jobs
            do {
                let written = try pool.withConnection {
                    try service.write(
                        decision, on: $0, holds: { decided.generation == generation.load(ordering: .acquiring) },
                        locked: { endTurn(decided.turn) }, beforeCommit: { for job in jobs { try job.beforeCommit() } })
                }
                if let report = written {
                    var start = 0
                    for job in jobs {
                        var part = report
                        part.results = Array(report.results[start..<start + job.batch.count])
                        start += job.batch.count
                        job.finish(.success((part, true)))
                    }
                    return
                }
            } catch {
                invalidate()
                // Alone, the batch failed for itself; together, each is appended again on its own below.
                if jobs.count == 1 {
                    jobs[0].finish(.failure(error))
                    return
                }
            }
        }
        // The batches decided after this one assumed it would be written as decided: told so, they write nothing
        // and are appended under the lock instead.
        invalidate()
        for job in decided.jobs {
            job.finish(Result {
                let report = try pool.withConnection {
                    try service.append(job.batch, atomic: atomic, on: $0, beforeCommit: job.beforeCommit)
                }
                if !atomic || report.count(.appended) > 0 { invalidate() }
                return (report, false)
            }.mapError { error in
                invalidate()
                return error
            })
        }
    }

    private func invalidate() {
        generation.add(1, ordering: .releasing)
    }

    private func waitForTurn(_ turn: Int) {
        let waiting: DispatchSemaphore? = turns.withLock { turns in
            guard turns.current != turn else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            turns.waiting[turn] = semaphore
            return semaphore
        }
        waiting?.wait()
    }

    /// Passes the turn on, unless passed already.
    private func endTurn(_ turn: Int) {
        let next = turns.withLock { turns -> DispatchSemaphore? in
            guard turns.current == turn else { return nil }
            turns.current = turn + 1
            return turns.waiting.removeValue(forKey: turn + 1)
        }
        next?.signal()
    }
}
