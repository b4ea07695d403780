import EventStore
import Foundation
import Geo
import JSON
import LocationEvents
import Postgres
import Projections

/// One submitted item: its bytes, or why they cannot be taken as a submission (too large, or broken structure
/// around it), found while reading the batch.
public enum IngestItem: Sendable {
    /// The item's bytes, read and validated as the batch is prepared.
    case bytes(Data)
    case malformed(FieldError)
}

/// Items validated, assessed and turned into events, ready to append. Building it needs no database, so it can
/// run while the previous batch is being written.
public struct PreparedBatch: Sendable {
    /// Per item, in order: its event (by index into `events`), or its answer when it cannot be appended.
    fileprivate var items: [PreparedItem]
    /// The events to append, in item order.
    private(set) var events: [NewEvent]
    /// What the projections will read of each event, in the order of `events`.
    private(set) var projected: [ProjectedEvent]
    /// The indexes in `events` of those that bind or unbind a terminal, in order: the rules and the bindings look at
    /// these alone, without reading every event again on another thread.
    private(set) var bindings: [Int]
    /// Per item, the type its `type` member names, when it names one, valid or not.
    public private(set) var types: [EventType?]

    public var count: Int { items.count }
}

extension PreparedBatch {
    /// Batches one after another as one, to append in one transaction: each item is answered as it would be were the
    /// batches appended in turn, except for the report's `head`, which is the log's head after them all.
    public init(joining batches: [PreparedBatch]) {
        var bindings: [Int] = []
        var offset = 0
        for batch in batches {
            bindings += batch.bindings.map { $0 + offset }
            offset += batch.events.count
        }
        self.init(
            items: batches.flatMap(\.items), events: batches.flatMap(\.events), projected: batches.flatMap(\.projected),
            bindings: bindings, types: batches.flatMap(\.types))
    }
}

private enum PreparedItem: Sendable {
    case event
    case rejected(IngestItemResult)
}

/// The one path by which location records come in (the CLI's `ingest` and `POST /v1/events`): validate → assess →
/// append in a batch, with the domain rules and the terminal bindings in the same transaction. Once a batch commits,
/// its events go to the projector, which keeps the other read models behind the log.
public struct IngestService: Sendable {
    let validator: SubmissionValidator
    let assessor: FixAssessor
    let store = EventLog()
    /// Where committed events are handed over, to be projected without reading them back; nil: the projector reads
    /// them from the log.
    public private(set) var projector: ProjectorRunner?

    public init(
        classifier: any RegionClassifying, policy: AccuracyPolicy = AccuracyPolicy(), limits: ValidationLimits = ValidationLimits(),
        projector: ProjectorRunner? = nil
    ) {
        validator = SubmissionValidator(limits: limits)
        assessor = FixAssessor(classifier: classifier, policy: policy)
        self.projector = projector
    }

    /// The same service, handing what it appends over to `projector`.
    public func handingOver(to projector: ProjectorRunner) -> IngestService {
        var service = self
        service.projector = projector
        return service
    }

    /// Reads, validates and assesses items, in order, each one once (a lazy collection makes each item only as it
    /// comes to it); `now` is the server's receive time.
    public func prepare<Items: Collection<IngestItem>>(_ items: Items, now: Date = Date()) -> PreparedBatch {
        // Room at once for the rows of valid submissions of the usual size, each row some 1.3 kB (its data, about the
        // size of the item, its metadata and the other columns), without reading the items twice to add up their
        // sizes; larger ones grow it as needed.
        var events = NewEvent.Batch(reservingBytes: items.count * 1536)
        var projected: [ProjectedEvent] = []
        var bindings: [Int] = []
        var types: [EventType?] = []
        projected.reserveCapacity(items.count)
        types.reserveCapacity(items.count)
        let receivedAt = now.postgresText
        // Each event's data and metadata are written here, then copied into its row.
        var data = CanonicalBytes(), metadata = CanonicalBytes()
        let prepared = items.map { item -> PreparedItem in
            let bytes: Data
            switch item {
            case .bytes(let given):
                bytes = given
            case .malformed(let error):
                types.append(nil)
                return .rejected(IngestItemResult(status: .invalid, errors: [error]))
            }
            switch validator.decode(bytes, now: now, writingDataInto: &data) {
            case .refused(let failure, let eventIdText, let type):
                types.append(type)
                return .rejected(IngestItemResult(eventId: eventIdText, status: .invalid, errors: failure.errors))
            case .taken(let submission, let numbers):
                types.append(submission.body.eventType)
                let assessment = submission.body.fix.map(assessor.assess)
                do {
                    let projection = try EventPayload.newEvent(
                        submission, data: data.bytes, numbers: numbers, assessment: assessment, receivedAt: receivedAt,
                        metadata: &metadata, into: &events)
                    if projection.binding != nil { bindings.append(projected.count) }
                    projected.append(projection)
                    return .event
                } catch {
                    // The payload is built here; failing to read it back is a defect, reported per item.
                    return .rejected(IngestItemResult(
                        eventId: submission.eventId.lowercasedText, status: .invalid,
                        errors: [FieldError(field: "", code: .invalidValue, message: "\(error)")]))
                }
            }
        }
        return PreparedBatch(
            items: prepared, events: events.finish(), projected: projected, bindings: bindings, types: types)
    }

    /// Appends a prepared batch in one transaction. Without `atomic`, bad items are answered and the good ones
    /// stored; with it, one bad item stores nothing.
    /// - Parameters:
    ///   - cache: stream heads from earlier batches of the same writer (see ``StreamHeadCache``).
    ///   - beforeCommit: runs inside the transaction right before COMMIT, when there is one to commit; what it
    ///     throws rolls the batch back and is rethrown.
    public func append(
        _ batch: PreparedBatch, atomic: Bool = false, cache: StreamHeadCache? = nil, on connection: Connection,
        beforeCommit: () throws -> Void = {}
    ) throws -> IngestReport {
        let events = batch.events
        let rules = LocationRules(projected: batch.projected, bindings: batch.bindings)
        let anyRejected = events.count < batch.items.count
        let appended: AppendAnswer
        if atomic && anyRejected {
            appended = AppendAnswer(results: events.map { _ in .notAppended }, head: try store.head(on: connection))
        } else if atomic {
            appended = try store.appendAtomically(events, hooks: rules, cache: cache, on: connection, beforeCommit: beforeCommit)
        } else {
            appended = try store.append(events, hooks: rules, cache: cache, on: connection, beforeCommit: beforeCommit)
        }
        projector?.handOver(rules.appended)
        return Self.report(batch, appended)
    }

    /// Writes a batch decided by an ``IngestPlanner`` in one transaction, with the bindings it leaves.
    /// - Parameter beforeCommit: runs inside the transaction right before COMMIT; what it throws rolls the batch back
    ///   and is rethrown.
    /// - Returns: the answers; nil when someone else appended since the batch was decided, and nothing was written:
    ///   then append it with ``append(_:atomic:cache:on:)``, which decides under the append lock.
    package func write(
        _ decided: DecidedBatch, on connection: Connection, beforeCommit: () throws -> Void = {}
    ) throws -> IngestReport? {
        let written = try store.write(
            decided.append,
            then: { transaction in
                try Projector.live.store(decided.bindings, on: transaction)
                try beforeCommit()
            }, on: connection)
        guard written else { return nil }
        projector?.handOver(decided.placed)
        return Self.report(decided.batch, decided.append.answer)
    }

    /// The log's head as committed (see ``LogHead``).
    public func head(on connection: Connection) throws -> LogHead {
        try store.head(on: connection)
    }

    /// The answer for each item of a batch, given the append's answer for each of its events.
    private static func report(_ batch: PreparedBatch, _ answer: AppendAnswer) -> IngestReport {
        let events = batch.events
        let appended = answer.results
        var next = 0
        let results = batch.items.map { item -> IngestItemResult in
            switch item {
            case .rejected(let result):
                return result
            case .event:
                defer { next += 1 }
                return Self.result(for: events[next], next < appended.count ? appended[next] : .notAppended)
            }
        }
        return IngestReport(results: results, head: answer.head)
    }

    /// ``prepare(_:now:)`` then ``append(_:atomic:on:)``.
    public func ingest(_ items: [IngestItem], atomic: Bool = false, now: Date = Date(), on connection: Connection) throws -> IngestReport {
        try append(prepare(items, now: now), atomic: atomic, on: connection)
    }

    private static func result(for event: NewEvent, _ answer: AppendResult) -> IngestItemResult {
        let id = event.eventId
        switch answer {
        case .appended(let stream, let version, let position):
            return IngestItemResult(event: id, status: .appended, stream: stream, version: version, position: position)
        case .duplicate(let stream, let version, let position):
            return IngestItemResult(event: id, status: .duplicate, stream: stream, version: version, position: position)
        case .conflict(let conflict):
            return IngestItemResult(event: id, status: .conflict, stream: event.stream, conflict: conflict)
        case .notAppended:
            return IngestItemResult(event: id, status: .notAppended, stream: event.stream)
        }
    }
}
