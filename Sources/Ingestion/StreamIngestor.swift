import Foundation
import EventStore
import Postgres
import Synchronization

/// Totals of a streamed ingest.
public struct IngestTotals: Sendable, Equatable {
    public var items = 0
    public var appended = 0
    public var duplicate = 0
    public var conflict = 0
    public var invalid = 0
    /// The log's head after the last batch (when it appended nothing, the head the log had); nil before any.
    public var head: LogHead?
    /// Batches decided ahead on the second connection and written as decided.
    public var batchesDecidedAhead = 0
    /// Batches decided under the append lock: every batch without a second connection; with one, every batch from the
    /// first that found, when it came to be written, that someone else had appended since it was decided.
    public var batchesDecidedUnderLock = 0

    public init() {}

    /// Every item was stored, now or before.
    public var allStored: Bool { conflict == 0 && invalid == 0 }

    /// `1 item`, `2 items`: the count of items for a message.
    public var itemCount: String { items == 1 ? "1 item" : "\(items) items" }

    mutating func add(_ report: IngestReport) {
        items += report.results.count
        for result in report.results {
            switch result.status {
            case .appended: appended += 1
            case .duplicate: duplicate += 1
            case .conflict: conflict += 1
            case .invalid: invalid += 1
            case .notAppended: break
            }
        }
        head = report.head
    }
}

/// Ingests a stream of submissions in batches, in three stages that work at the same time: one thread reads,
/// parses, validates and assesses batches; with a second connection, another decides each batch (versions, rules,
/// hashes, projection rows) while the one before it is written; the caller's thread writes. Memory stays bounded by a
/// few batches, each of at most `batchSize` items and about ``maximumBatchBytes``, whatever the input.
public struct StreamIngestor {
    let service: IngestService
    let batchSize: Int

    /// Events per transaction unless told otherwise. Each batch costs a dozen round trips to the database, so larger
    /// batches append faster, up to a point (docs/performance.md has the measurements). Memory stays bounded by a few
    /// batches. A batch holds the append lock while it is written, so other writers wait up to that long.
    public static let defaultBatchSize = 4000

    /// A batch also ends once its items hold this many bytes of input, so that items near the size limit make
    /// batches of a few megabytes, not of gigabytes; batches of valid submissions (a kilobyte or so each) do not
    /// come near it.
    public static let maximumBatchBytes = 4 << 20

    public init(service: IngestService, batchSize: Int = StreamIngestor.defaultBatchSize) {
        self.service = service
        self.batchSize = max(1, batchSize)
    }

    /// Decided batches that wait while another is written. With the one being written, one more than this may be
    /// uncommitted while the next batch is decided: the planner keeps what they change (``IngestPlanner``).
    static let decidedAhead = 1

    /// - Parameters:
    ///   - reader: the input; consumed on a thread of its own, which is done with it when this returns, so that the
    ///     caller may close its file descriptor then. Stopped early, it reads no more, even of a pipe that stays open.
    ///   - connection: where the batches are written.
    ///   - decidingOn: a second connection to the same database on the same server, outside any transaction, on
    ///     which batches are decided ahead of writing them; should anyone else append meanwhile, the batches from
    ///     then on are decided under the append lock. Without it, every batch is decided under the lock.
    ///   - rejected: called for each item that was not stored (invalid or conflict), with its raw bytes.
    ///   - progress: called after each batch with the totals so far and the input bytes read.
    ///   An error either of them throws stops the ingest after the batch it was called for.
    /// When the service hands its appends over to a projector, the projector runs in the background meanwhile (unless
    /// it runs already), and the ingest ends with the projections caught up with the log.
    /// - Throws: ``IngestError`` of kind `stopped` with the cause and the totals of the batches committed before it;
    ///   of kind `projectionsNotCaughtUp` when every batch was committed but the projections could not be brought up
    ///   to them.
    public func run(
        _ reader: SubmissionReader, on connection: Connection, decidingOn decider: Connection? = nil,
        rejected: (SubmissionReader.RawItem, IngestItemResult) throws -> Void = { _, _ in },
        progress: (IngestTotals, Int) throws -> Void = { _, _ in }
    ) throws -> IngestTotals {
        let readStop: ReadStop
        do {
            readStop = try ReadStop()
        } catch {
            throw IngestError.stopped(by: error, committed: IngestTotals())
        }
        let read = BatchQueue<ReadBatch>(capacity: 2)
        let decided = BatchQueue<PlannedBatch>(capacity: Self.decidedAhead)
        let underLock = Flag()
        let projector = service.projector.flatMap { $0.status.running ? nil : $0 }
        projector?.start()
        defer { projector?.stop() }
        let readerDone = startReading(reader, into: read, stoppedBy: readStop)
        let deciderDone = decider.map { startDeciding(read, into: decided, on: $0, unless: underLock) }
        defer {
            read.cancel()
            decided.cancel()
            // Both threads are waited for: the input and the decider's connection are the caller's to close once
            // this returns. A reader waiting for more of a pipe that stays open is woken by the stop; the decider is
            // at most one query from done.
            readStop.stop()
            readerDone.wait()
            deciderDone?.wait()
        }

        var totals = IngestTotals()
        let heads = StreamHeadCache()
        func next() -> PlannedBatch? {
            if decider != nil { return decided.take() }
            return read.take().map { PlannedBatch(read: $0, decided: nil) }
        }
        do {
            while let batch = next() {
                // The appends wait while the projections are too far behind.
                try service.projector?.waitForRoom()
                var report: IngestReport?
                if let decision = try batch.decided?.get(), !underLock.isSet {
                    report = try service.write(decision, on: connection)
                    if report == nil { underLock.set() }
                }
                let answered = try report ?? service.append(batch.read.prepared, cache: heads, on: connection)
                totals.add(answered)
                if report != nil { totals.batchesDecidedAhead += 1 } else { totals.batchesDecidedUnderLock += 1 }
                for index in answered.results.indices where answered.results[index].status.isRejection {
                    try rejected(batch.read.raw[index], answered.results[index])
                }
                try progress(totals, batch.read.bytesRead)
                read.recycle((batch, answered))
            }
            if let readError = read.readError { throw IngestError.input(readError) }
        } catch {
            throw IngestError.stopped(by: error, committed: totals)
        }
        if totals.head == nil { totals.head = try service.head(on: connection) }
        if let projector {
            projector.stop()
            do {
                try projector.catchUp(on: connection)
            } catch {
                throw IngestError.projectionsNotCaughtUp(error, committed: totals)
            }
        }
        return totals
    }

    /// Reads, parses and prepares batches on a thread of its own.
    private func startReading(
        _ reader: SubmissionReader, into queue: BatchQueue<ReadBatch>, stoppedBy stop: ReadStop
    ) -> DispatchSemaphore {
        let service = self.service
        let batchSize = self.batchSize
        let input = reader
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var reader = input
            reader.stop = stop
            while !queue.isCancelled {
                var raw: [SubmissionReader.RawItem] = []
                var bytes = 0
                while raw.count < batchSize, bytes < Self.maximumBatchBytes, let item = reader.next() {
                    raw.append(item)
                    bytes += item.bytes.count
                }
                if raw.isEmpty { break }
                // Parsed one at a time: only one item's parsed form is held at once.
                let prepared = service.prepare(raw.lazy.map(\.parsed))
                queue.releaseSpent()
                queue.put(ReadBatch(raw: raw, prepared: prepared, bytesRead: reader.bytesConsumed))
            }
            queue.finish(readError: reader.readError)
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        return done
    }

    /// Decides the read batches on a thread of its own, on `connection`, until `underLock` is set (someone else
    /// appended); from then on passes them on undecided. A failure to decide is passed on for the writer to throw.
    private func startDeciding(
        _ read: BatchQueue<ReadBatch>, into decided: BatchQueue<PlannedBatch>, on connection: Connection,
        unless underLock: Flag
    ) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let planner = IngestPlanner(inFlight: Self.decidedAhead + 1)
            var failed = false
            while !failed, let batch = read.take() {
                var decision: Result<DecidedBatch, any Error>?
                if !underLock.isSet {
                    decision = Result { try planner.decide(batch.prepared, reading: connection) }
                    if case .failure = decision { failed = true }
                }
                decided.put(PlannedBatch(read: batch, decided: decision))
            }
            decided.finish(readError: nil)
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        return done
    }
}

/// What ended an ingest early, or what it could not finish: the module's one error type.
public struct IngestError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Stopped by ``cause``: the batches before it were committed (``committed``), the one it stopped in was not
        /// (or, when the server stopped answering at its commit, perhaps was: its events come back as duplicates on a
        /// second run).
        case stopped
        /// Every batch was committed (``committed``), but the projections could not be caught up with them (a table
        /// they cannot write, say); reads wait for them until they are.
        case projectionsNotCaughtUp
        /// The input could not be read to its end.
        case input(reason: String)
    }

    public let kind: Kind
    /// Why it stopped or the projections were not caught up: the database's error, or one of kind ``Kind/input(reason:)``.
    public let cause: (any Error)?
    /// The totals of the batches committed.
    public let committed: IngestTotals

    static func stopped(by cause: any Error, committed: IngestTotals) -> IngestError {
        IngestError(kind: .stopped, cause: cause, committed: committed)
    }

    static func projectionsNotCaughtUp(_ cause: any Error, committed: IngestTotals) -> IngestError {
        IngestError(kind: .projectionsNotCaughtUp, cause: cause, committed: committed)
    }

    static func input(_ reason: String) -> IngestError {
        IngestError(kind: .input(reason: reason), cause: nil, committed: IngestTotals())
    }

    public var description: String {
        let cause = self.cause.map { "\($0)" } ?? ""
        switch kind {
        case .stopped:
            let before = committed.items == 0
                ? "nothing before it was committed"
                : "\(committed.itemCount) before it \(committed.items == 1 ? "was" : "were") committed (appended \(committed.appended), duplicate "
                    + "\(committed.duplicate), conflict \(committed.conflict), invalid \(committed.invalid))"
            return "ingest stopped: \(cause); \(before); re-running the same input is safe"
        case .projectionsNotCaughtUp:
            return "every item above was stored, but the projections could not be caught up: \(cause); reads answer once "
                + "they are: remove the cause, then run 'geoledger project'"
        case .input(let reason):
            return "reading the input failed: \(reason)"
        }
    }
}

private struct ReadBatch: Sendable {
    let raw: [SubmissionReader.RawItem]
    let prepared: PreparedBatch
    let bytesRead: Int
}

/// A read batch and, unless it is to be decided under the lock, its decision or why there is none.
private struct PlannedBatch: Sendable {
    let read: ReadBatch
    let decided: Result<DecidedBatch, any Error>?
}

/// Set once, seen from any thread.
private final class Flag: Sendable {
    private let value = Atomic(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A bounded hand-over between two stages.
private final class BatchQueue<Batch: Sendable>: Sendable {
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
