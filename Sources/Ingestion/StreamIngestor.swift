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
    /// Batches decided under the append lock: every batch without a second connection; with one, a batch that found,
    /// when it came to be written, that someone else had appended since it was decided, or one decided before that.
    public var batchesDecidedUnderLock = 0

    public init() {}

    /// Every item was stored, now or before.
    public var allStored: Bool { conflict == 0 && invalid == 0 }

    /// `1 item`, `2 items`: the count of items for a message.
    public var itemCount: String { items == 1 ? "1 item" : "\(items) items" }

    mutating func add(_ report: IngestReport, decidedAhead: Bool) {
        if decidedAhead { batchesDecidedAhead += 1 } else { batchesDecidedUnderLock += 1 }
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

/// Ingests a stream of submissions in batches: one thread reads, parses, validates and assesses them, and a
/// ``BatchAppender`` appends them, deciding each on a second connection while the one before it is written; the
/// caller's thread takes the answers in order. Memory stays bounded by a few batches, each of at most `batchSize`
/// items and about ``maximumBatchBytes``, whatever the input.
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

    /// Batches given to the appender and not yet answered, at most: one written, one decided meanwhile.
    static let unanswered = 2

    public init(service: IngestService, batchSize: Int = StreamIngestor.defaultBatchSize) {
        self.service = service
        self.batchSize = max(1, batchSize)
    }

    /// - Parameters:
    ///   - reader: the input; consumed on a thread of its own, which is done with it when this returns, so that the
    ///     caller may close its file descriptor then. Stopped early, it reads no more, even of a pipe that stays open.
    ///   - connection: where the batches are written.
    ///   - decidingOn: a second connection to the same database on the same server, outside any transaction, on
    ///     which batches are decided ahead of writing them. Without it, every batch is decided under the append lock.
    ///   - rejected: called for each item that was not stored (invalid or conflict), with its raw bytes.
    ///   - progress: called after each batch with the totals so far and the input bytes read.
    ///   An error either of them throws stops the ingest: no batch is given to be appended after it, and the one being
    ///   written meanwhile, if any, is counted in the totals committed.
    /// When the service hands its appends over to a projector, the projector runs in the background meanwhile (unless
    /// it runs already), and the ingest ends with the projections caught up with the log.
    /// - Throws: ``IngestError`` of kind `stopped` with the cause and the totals of the batches committed; of kind
    ///   `projectionsNotCaughtUp` when every batch was committed but the projections could not be brought up to them.
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
        let projector = service.projector.flatMap { $0.status.running ? nil : $0 }
        projector?.start()
        defer { projector?.stop() }
        let appender = BatchAppender(
            service: service, deciding: decider.map(BatchAppender.Connections.only), writing: .only(connection),
            decidedAhead: 1, joinedEvents: batchSize, remembering: 500_000)
        let readerDone = startReading(reader, into: read, stoppedBy: readStop)
        defer {
            read.cancel()
            // The input and the connections are the caller's to close once this returns: the reader and the
            // appender's threads are waited for. A reader waiting for more of a pipe that stays open is woken by the
            // stop.
            readStop.stop()
            readerDone.wait()
            appender.close()
        }

        var totals = IngestTotals()
        let halt = BatchAppender.Halt()
        var unanswered: [(ReadBatch, BatchAppender.Ticket)] = []
        func answer(_ batch: ReadBatch, _ ticket: BatchAppender.Ticket) throws {
            let (report, decidedAhead) = try ticket.wait()
            totals.add(report, decidedAhead: decidedAhead)
            for index in report.results.indices where report.results[index].status.isRejection {
                try rejected(batch.raw[index], report.results[index])
            }
            try progress(totals, batch.bytesRead)
            read.recycle((batch, report))
        }
        do {
            while let batch = read.take() {
                // The appends wait while the projections are too far behind.
                try service.projector?.waitForRoom()
                unanswered.append((batch, appender.submit(batch.prepared, halt: halt)))
                if unanswered.count >= Self.unanswered {
                    let (oldest, ticket) = unanswered.removeFirst()
                    try answer(oldest, ticket)
                }
            }
            while let (batch, ticket) = unanswered.first {
                unanswered.removeFirst()
                try answer(batch, ticket)
            }
            if let readError = read.readError { throw IngestError.input(readError) }
        } catch {
            halt.set()
            // Those given after it are answered without being written, unless written already: then they count.
            for (_, ticket) in unanswered {
                if let (report, decidedAhead) = try? ticket.wait() { totals.add(report, decidedAhead: decidedAhead) }
            }
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
