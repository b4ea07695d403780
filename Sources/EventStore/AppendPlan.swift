import Foundation

/// Decides, in batch order, what happens to each event of an append, and computes the rows to write.
/// Pure: everything it needs from the database is loaded before.
struct AppendPlan: Sendable {
    private let events: [NewEvent]
    private let stored: [UUID: StoredIdentity]
    /// The stream heads as the batch leaves them.
    private(set) var heads: [String: StreamHead]
    /// The log's head as the batch leaves it.
    private(set) var logHead: LogHead
    /// One recording time for the whole batch.
    let recordedAt: Timestamp
    private(set) var results: [AppendResult] = []
    /// The events admitted, in batch order.
    private(set) var appended: [AppendedEvent] = []

    /// - Parameter logHead: the log's head before the batch.
    init(events: [NewEvent], stored: [UUID: StoredIdentity], heads: [String: StreamHead], after logHead: LogHead, recordedAt: Timestamp) {
        self.events = events
        self.stored = stored
        self.heads = heads
        self.logHead = logHead
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
        var chainer = EventHash.Chainer()
        for index in events.indices {
            // Looked up once: the id's hash is most of a lookup's cost, and it was looked up again to be recorded.
            let id = events[index].eventId
            let earlier = firstWithId[id]
            results.append(decideOne(at: index, earlier: earlier, rule: rule, hashing: &chainer))
            if earlier == nil { firstWithId[id] = index }
        }
    }

    /// - Parameters:
    ///   - index: the event's index in the batch.
    ///   - earlier: the index of an earlier event of the batch with the same id.
    ///   - chainer: hashes the batch's events.
    private mutating func decideOne(
        at index: Int, earlier: Int?, rule: (NewEvent) -> AppendConflict?, hashing chainer: inout EventHash.Chainer
    ) -> AppendResult {
        let event = events[index]
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
        let version = record(at: index, after: head, hashing: &chainer)
        return .appended(stream: event.stream, version: version, position: logHead.position)
    }

    /// Computes the stored row of the admitted event at `index` and advances its stream and the log; returns its
    /// version.
    private mutating func record(at index: Int, after head: StreamHead?, hashing chainer: inout EventHash.Chainer) -> Int64 {
        let event = events[index]
        let version = (head?.version ?? -1) + 1
        let position = logHead.position + 1
        let hash = chainer.chain(
            previous: head?.hash ?? EventHash.genesis, event, position: position, recordedAt: recordedAt,
            version: version)
        let logHash = chainer.logChain(previous: logHead.hash, hash: hash)
        heads[event.stream] = StreamHead(version: version, hash: hash, position: position)
        logHead = LogHead(position: position, hash: logHash)
        appended.append(AppendedEvent(
            index: index, eventId: event.eventId, position: position, version: version, hash: hash, logHash: logHash))
        return version
    }

    static func checkVersion(_ event: NewEvent, head: StreamHead?) -> AppendConflict? {
        let expected: String
        switch event.expectedVersion {
        case .any:
            return nil
        case .noStream where head == nil:
            return nil
        case .exact(let version) where head?.version == version:
            return nil
        case .noStream:
            expected = "no stream"
        case .exact(let version):
            expected = "version \(version)"
        }
        let current = head.map { "is at version \($0.version)" } ?? "does not exist"
        return AppendConflict(code: "wrong_expected_version", message: "stream \(event.stream) \(current), expected \(expected)")
    }

    static func reused(_ id: UUID) -> AppendConflict {
        AppendConflict(
            code: "event_id_reused",
            message: "event id \(id.lowercasedText) is already used by an event with other content")
    }
}
