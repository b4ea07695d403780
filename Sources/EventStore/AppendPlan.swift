import Foundation

/// Decides, in batch order, what happens to each event of an append, and computes the rows to write.
/// Pure: everything it needs from the database is loaded before.
struct AppendPlan {
    private let events: [NewEvent]
    private let stored: [UUID: StoredIdentity]
    /// The stream heads as the batch leaves them.
    private(set) var heads: [String: StreamHead]
    private var nextPosition: Int64
    /// One recording time for the whole batch.
    let recordedAt: Timestamp
    private(set) var results: [AppendResult] = []
    private(set) var recorded: [RecordedEvent] = []
    /// What was rendered ahead of each recorded event, in the same order.
    private(set) var rendered: [RenderedEvent] = []

    init(events: [NewEvent], stored: [UUID: StoredIdentity], heads: [String: StreamHead], nextPosition: Int64, recordedAt: Timestamp) {
        self.events = events
        self.stored = stored
        self.heads = heads
        self.nextPosition = nextPosition
        self.recordedAt = recordedAt
    }

    var hasFailures: Bool {
        results.contains { if case .conflict = $0 { true } else { false } }
    }

    /// The answers of a failed atomic batch: conflicts stay, everything else was not appended.
    var atomicResults: [AppendResult] {
        results.map { if case .conflict = $0 { $0 } else { .notAppended } }
    }

    mutating func decide(_ rule: (NewEvent) -> AppendConflict?) {
        // The index of the first event with each id, whose result a later one with the same id follows.
        var firstWithId: [UUID: Int] = [:]
        firstWithId.reserveCapacity(events.count)
        for index in events.indices {
            let event = events[index]
            results.append(decideOne(event, earlier: firstWithId[event.eventId], rule: rule))
            if firstWithId[event.eventId] == nil { firstWithId[event.eventId] = index }
        }
    }

    /// - Parameter earlier: the index of an earlier event of the batch with the same id.
    private mutating func decideOne(_ event: NewEvent, earlier: Int?, rule: (NewEvent) -> AppendConflict?) -> AppendResult {
        if let original = stored[event.eventId] {
            guard original.stream == event.stream, original.type == event.type, original.data == event.data else {
                return .conflict(Self.reused(event.eventId))
            }
            return .duplicate(stream: original.stream, version: original.version, position: original.position)
        }
        if let earlier {
            let first = events[earlier]
            guard first.stream == event.stream, first.type == event.type, first.data == event.data else {
                return .conflict(Self.reused(event.eventId))
            }
            if case .appended(let stream, let version, let position) = results[earlier] {
                return .duplicate(stream: stream, version: version, position: position)
            }
            return results[earlier]
        }
        let head = heads[event.stream]
        if let conflict = Self.checkVersion(event, head: head) { return .conflict(conflict) }
        if let conflict = rule(event) { return .conflict(conflict) }
        return .appended(stream: event.stream, version: record(event, after: head), position: nextPosition - 1)
    }

    /// Computes the stored row of an admitted event and advances its stream; returns its version.
    private mutating func record(_ event: NewEvent, after head: StreamHead?) -> Int64 {
        let version = (head?.version ?? -1) + 1
        let position = nextPosition
        nextPosition += 1
        let hash = EventHash.chain(
            previous: head?.hash ?? EventHash.genesis, event.rendered, position: position, recordedAt: recordedAt,
            version: version)
        heads[event.stream] = StreamHead(version: version, hash: hash, position: position)
        rendered.append(event.rendered)
        recorded.append(RecordedEvent(
            position: position, eventId: event.eventId, stream: event.stream, version: version, type: event.type,
            data: event.data, metadata: event.metadata, recordedAt: recordedAt.date, hash: hash))
        return version
    }

    static func checkVersion(_ event: NewEvent, head: StreamHead?) -> AppendConflict? {
        let current = head.map { "is at version \($0.version)" } ?? "does not exist"
        switch event.expectedVersion {
        case .any:
            return nil
        case .noStream where head == nil:
            return nil
        case .exact(let expected) where head?.version == expected:
            return nil
        case .noStream:
            return AppendConflict(code: "wrong_expected_version", message: "stream \(event.stream) \(current), expected no stream")
        case .exact(let expected):
            return AppendConflict(
                code: "wrong_expected_version", message: "stream \(event.stream) \(current), expected version \(expected)")
        }
    }

    static func reused(_ id: UUID) -> AppendConflict {
        AppendConflict(
            code: "event_id_reused",
            message: "event id \(id.lowercasedText) is already used by an event with other content")
    }
}
