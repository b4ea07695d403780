import CivilCalendar
import Foundation

/// Decides, in batch order, what happens to each event of an append, and computes the rows to write.
/// Pure: everything it needs from the database is loaded before.
struct AppendPlan: Sendable {
    private let events: [NewEvent]
    private let stored: [UUID: StoredIdentity]
    private let streams: Streams
    /// Per stream of `streams.keys`, its head as the batch leaves it; nil while it has no event.
    private(set) var streamHeads: [StreamHead?]
    /// The log's head as the batch leaves it.
    private(set) var logHead: LogHead
    /// One recording time for the whole batch.
    let recordedAt: Timestamp
    private(set) var results: [AppendResult] = []
    /// The events admitted, in batch order.
    private(set) var appended: [AppendedEvent] = []
    /// The first event of the batch with each id, by its index in the batch: filled by ``decide(_:)``.
    private(set) var firstWithId = Set<FirstWithId>()

    /// The streams of a batch, each named once, and the stream of each event as an index into them: an event finds
    /// its stream's head by that index, where its stream's name was hashed to look the head up, again to record the
    /// new head, and twice more to gather the heads to read.
    struct Streams: Sendable {
        /// In the order of their first events.
        let keys: [StreamKey]
        /// Per event, the index of its stream in `keys`.
        let ofEvent: [Int]

        init(_ events: [NewEvent]) {
            var index: [StreamKey: Int] = [:]
            var keys: [StreamKey] = []
            var ofEvent: [Int] = []
            index.reserveCapacity(events.count)
            keys.reserveCapacity(events.count)
            ofEvent.reserveCapacity(events.count)
            for event in events {
                let stream = StreamKey(event.stream)
                let found = index.value(of: stream, storingIfAbsent: keys.count)
                ofEvent.append(found)
                if found == keys.count { keys.append(stream) }
            }
            self.keys = keys
            self.ofEvent = ofEvent
        }
    }

    /// - Parameters:
    ///   - heads: per stream of `streams.keys`, its head before the batch; nil for a stream without events.
    ///   - logHead: the log's head before the batch.
    init(events: [NewEvent], streams: Streams, heads: [StreamHead?], stored: [UUID: StoredIdentity], after logHead: LogHead, recordedAt: Timestamp) {
        precondition(heads.count == streams.keys.count, "one head, or nil, per stream of the batch")
        self.events = events
        self.stored = stored
        self.streams = streams
        streamHeads = heads
        self.logHead = logHead
        self.recordedAt = recordedAt
    }

    /// - Parameter heads: the heads before the batch of its streams that have events.
    init(events: [NewEvent], stored: [UUID: StoredIdentity], heads: [String: StreamHead], after logHead: LogHead, recordedAt: Timestamp) {
        let streams = Streams(events)
        self.init(
            events: events, streams: streams, heads: streams.keys.map { heads[$0.name] }, stored: stored, after: logHead,
            recordedAt: recordedAt)
    }

    /// The heads of the batch's streams as the batch leaves them (those with events).
    var heads: [(String, StreamHead)] {
        zip(streams.keys, streamHeads).compactMap { stream, head in head.map { (stream.name, $0) } }
    }

    var hasFailures: Bool {
        results.contains { if case .conflict = $0 { true } else { false } }
    }

    /// The answers of a failed atomic batch: conflicts stay, everything else was not appended.
    var atomicResults: [AppendResult] {
        results.map { if case .conflict = $0 { $0 } else { .notAppended } }
    }

    /// - Parameter rule: the domain's rule, asked about the event at an index of the batch (see ``AppendHooks``).
    mutating func decide(_ rule: (Int) -> AppendConflict?) {
        firstWithId.reserveCapacity(events.count)
        var chainer = EventHash.Chainer()
        for index in events.indices {
            // One hash of the id: an insert answers the member already there.
            let (isFirst, first) = firstWithId.insert(FirstWithId(id: events[index].eventId, index: index))
            results.append(decideOne(at: index, earlier: isFirst ? nil : first.index, rule: rule, hashing: &chainer))
        }
    }

    /// - Parameters:
    ///   - index: the event's index in the batch.
    ///   - earlier: the index of an earlier event of the batch with the same id.
    ///   - chainer: hashes the batch's events.
    private mutating func decideOne(
        at index: Int, earlier: Int?, rule: (Int) -> AppendConflict?, hashing chainer: inout EventHash.Chainer
    ) -> AppendResult {
        let event = events[index]
        // Most batches find none of their ids stored: the id is not hashed then.
        if !stored.isEmpty, let original = stored[event.eventId] {
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
        let head = streamHeads[streams.ofEvent[index]]
        if let conflict = Self.checkVersion(event, head: head) { return .conflict(conflict) }
        if let conflict = rule(index) { return .conflict(conflict) }
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
        streamHeads[streams.ofEvent[index]] = StreamHead(version: version, hash: hash, position: position)
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

    /// An event's id with its index in the batch; equal and hashed by the id alone.
    struct FirstWithId: Hashable, Sendable {
        let id: UUID
        let index: Int

        static func == (a: FirstWithId, b: FirstWithId) -> Bool { a.id == b.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    static func reused(_ id: UUID) -> AppendConflict {
        AppendConflict(
            code: "event_id_reused",
            message: "event id \(id.lowercasedText) is already used by an event with other content")
    }
}
