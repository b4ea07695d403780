import Dispatch
import Ingestion
import Postgres
import Synchronization

/// Appends the batches of `POST /v1/events` one after another, as `ingest` appends a file's: each batch is decided
/// (stream versions, domain rules, hashes: ``IngestPlanner``) outside the append lock, while the batches before it
/// are being written, and then written in the order decided. Handlers read, validate and assess their batches at the
/// same time on their own threads, and bring them here.
///
/// A decision holds only while the batches decided before it are written as decided and nobody else appends. So
/// when a batch fails, is decided again under the lock (atomic, or someone else appended: the write checks the log's
/// head under the lock and writes nothing then), the planner starts afresh, and the batches it decided before are
/// appended under the lock instead.
final class BatchWriter: Sendable {
    /// Batches decided and not yet written, at most: the planner keeps what they change.
    static let decidedAhead = 4

    private let service: IngestService
    private let pool: ConnectionPool
    private let planning = Mutex(Planning())
    /// Bumped whenever the batches decided so far may not be written as decided.
    private let generation = Atomic(0)
    private let turns = Mutex(Turns())
    private let slots = DispatchSemaphore(value: BatchWriter.decidedAhead)

    private struct Planning: ~Copyable {
        var planner = IngestPlanner(inFlight: BatchWriter.decidedAhead)
        var generation = 0
        var nextTurn = 0
    }

    /// Whose turn it is to write, and who waits for theirs.
    private struct Turns {
        var current = 0
        var waiting: [Int: DispatchSemaphore] = [:]
    }

    private struct Decision: Sendable {
        let batch: DecidedBatch
        let generation: Int
    }

    init(service: IngestService, pool: ConnectionPool) {
        self.service = service
        self.pool = pool
    }

    /// Appends `batch` in one transaction of its own and answers it once committed, with whether it was decided
    /// ahead of the append lock.
    /// - Parameter beforeCommit: runs inside the transaction right before COMMIT; what it throws rolls the batch
    ///   back and is rethrown.
    func append(
        _ batch: PreparedBatch, atomic: Bool, beforeCommit: () throws -> Void
    ) throws -> (report: IngestReport, decidedAhead: Bool) {
        slots.wait()
        defer { slots.signal() }
        let (turn, decision) = try decide(batch, atomic: atomic)
        waitForTurn(turn)
        defer { endTurn(turn) }
        do {
            if let decision, decision.generation == generation.load(ordering: .acquiring),
                let report = try pool.withConnection({
                    try service.write(decision.batch, on: $0, beforeCommit: beforeCommit)
                })
            {
                return (report, true)
            }
            let report = try pool.withConnection {
                try service.append(batch, atomic: atomic, on: $0, beforeCommit: beforeCommit)
            }
            if !atomic || report.count(.appended) > 0 { invalidate() }
            return (report, false)
        } catch {
            invalidate()
            throw error
        }
    }

    /// Decides `batch` as the next one, unless it is atomic (decided under the lock), and gives it its turn.
    private func decide(_ batch: PreparedBatch, atomic: Bool) throws -> (turn: Int, decision: Decision?) {
        let current = generation.load(ordering: .acquiring)
        return try planning.withLock { planning in
            if planning.generation != current {
                planning.planner = IngestPlanner(inFlight: Self.decidedAhead)
                planning.generation = current
            }
            var decision: Decision?
            if !atomic {
                do {
                    let decided = try pool.withConnection { [planner = planning.planner] in
                        try planner.decide(batch, reading: $0)
                    }
                    decision = Decision(batch: decided, generation: current)
                } catch {
                    invalidate()
                    throw error
                }
            }
            defer { planning.nextTurn += 1 }
            return (planning.nextTurn, decision)
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

    private func endTurn(_ turn: Int) {
        let next = turns.withLock { turns in
            turns.current = turn + 1
            return turns.waiting.removeValue(forKey: turn + 1)
        }
        next?.signal()
    }
}
