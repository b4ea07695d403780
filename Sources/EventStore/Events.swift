import CivilCalendar
import Foundation
import Postgres

/// What a writer expects of a stream before its event is appended.
public enum ExpectedVersion: Sendable, Hashable {
    /// Append whatever the stream's state.
    case any
    /// The stream must not exist yet.
    case noStream
    /// The stream's last event must have exactly this version (the first event of a stream has version 0).
    case exact(Int64)
}

/// An event to append. `data` and `metadata` are canonical JSON: the exact bytes are stored and hashed.
///
/// Its fields live in one shared object: a batch's events are copied from array to plan to writer, and a copy of
/// a dozen references (each retained and released) showed in ingest profiles; this way a copy is one.
public struct NewEvent: Sendable, Equatable {
    private let fields: Fields

    /// Chosen by the client; the idempotency key.
    public var eventId: UUID { fields.parts.eventId }
    public var stream: String { fields.parts.stream }
    public var type: String { fields.parts.type }
    /// What the client submitted. Two events with one id are the same event when stream, type and data are equal.
    /// Kept only in the event's rendered row, and copied out here.
    public var data: Data { withData { Data($0) } }
    /// What the server added. Not part of the idempotency comparison: a resend computes it anew.
    public var metadata: Data { withMetadata { Data($0) } }
    public var expectedVersion: ExpectedVersion { fields.parts.expectedVersion }

    /// - Parameters: data, metadata: canonical JSON bytes (`Data` or `[UInt8]`).
    public init(
        eventId: UUID, stream: String, type: String, data: some ContiguousBytes, metadata: some ContiguousBytes,
        expectedVersion: ExpectedVersion = .any
    ) {
        var batch = Batch()
        batch.append(
            eventId: eventId, stream: stream, type: type, data: data, metadata: metadata, expectedVersion: expectedVersion)
        self = batch.finish()[0]
    }

    private init(_ fields: Fields) {
        self.fields = fields
    }

    /// The data's bytes, read in place.
    func withData<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try fields.rows.withBytes(in: fields.parts.data, body)
    }

    /// The metadata's bytes, read in place.
    func withMetadata<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try fields.rows.withBytes(in: fields.parts.metadata, body)
    }

    /// The event's stored row in binary COPY, in the rows of its batch; its last ``tailBytes`` bytes are position,
    /// version, recording time, hash and log hash, set by ``setTail(_:)`` when the event is appended.
    var row: (rows: RenderedRows, range: Range<Int>) { (fields.rows, fields.parts.row) }

    /// Why the row cannot be sent (a NUL character in a text), when it cannot; the writer throws it.
    var problem: String? { fields.parts.problem }

    /// Writes the row's tail in place: `tail` holds position, version, recorded_at, hash and log_hash
    /// (``writeTail(position:version:recordedAt:hash:logHash:into:)``).
    func setTail(_ tail: CopyRow) {
        precondition(tail.byteCount == Self.tailBytes, "a row's tail of \(tail.byteCount) bytes, not \(Self.tailBytes)")
        fields.rows.set(tail, at: fields.parts.row.upperBound - Self.tailBytes)
    }

    /// The COPY fields after the metadata: position, version and recorded_at (each a length and 8 bytes) and the
    /// two hashes (a length and 32 bytes each).
    static func writeTail(
        position: Int64, version: Int64, recordedAt: Timestamp, hash: Digest, logHash: Digest, into row: inout CopyRow
    ) {
        row.integer(position)
        row.integer(version)
        row.timestamp(microsecondsSince1970: recordedAt.microseconds)
        hash.withUnsafeBytes { row.bytea($0) }
        logHash.withUnsafeBytes { row.bytea($0) }
    }

    static let tailBytes = 3 * 12 + 2 * 36

    public static func == (left: NewEvent, right: NewEvent) -> Bool {
        left.fields === right.fields
            || (left.eventId == right.eventId && left.stream == right.stream && left.type == right.type
                && left.data == right.data && left.metadata == right.metadata && left.expectedVersion == right.expectedVersion)
    }

    /// The events of a batch, made one after another, their rows rendered into one buffer: one allocation for the
    /// batch rather than one per event, and rows the writer sends as they are (see ``EventLog/insert(_:of:on:)``).
    public struct Batch {
        private var rows = CopyRow(format: .binary)
        private var pending: [Parts] = []

        /// - Parameter bytes: room to make at once for the rows, in bytes; they grow past it as needed.
        public init(reservingBytes bytes: Int = 0) {
            if bytes > 0 { rows.reserveCapacity(bytes) }
        }

        public var count: Int { pending.count }

        /// Adds the next event. - Parameters: data, metadata: canonical JSON bytes (`Data` or `[UInt8]`).
        public mutating func append(
            eventId: UUID, stream: String, type: String, data: some ContiguousBytes, metadata: some ContiguousBytes,
            expectedVersion: ExpectedVersion = .any
        ) {
            let start = rows.byteCount
            var dataRange = 0..<0, metadataRange = 0..<0
            // The events table's columns, each text checked for a NUL, which PostgreSQL text cannot hold.
            let problem = data.withUnsafeBytes { data in
                metadata.withUnsafeBytes { metadata in
                    let (data, metadata) = (data.bindMemory(to: UInt8.self), metadata.bindMemory(to: UInt8.self))
                    rows.reserveCapacity(
                        2 + 4 + 16 + 4 + stream.utf8.count + 4 + type.utf8.count + 4 + data.count + 4 + metadata.count
                            + NewEvent.tailBytes)
                    return rows.renderRow { row in
                        row.uuid(eventId)
                        row.text(stream)
                        row.text(type)
                        row.bytes(data)
                        dataRange = row.byteCount - data.count..<row.byteCount
                        row.bytes(metadata)
                        metadataRange = row.byteCount - metadata.count..<row.byteCount
                        NewEvent.writeTail(
                            position: 0, version: 0, recordedAt: Timestamp(microseconds: 0), hash: .zero, logHash: .zero,
                            into: &row)
                    }
                }
            }
            pending.append(Parts(
                eventId: eventId, stream: stream, type: type, expectedVersion: expectedVersion, row: start..<rows.byteCount,
                data: dataRange, metadata: metadataRange, problem: problem))
        }

        /// The events, in the order they were added.
        public consuming func finish() -> [NewEvent] {
            let shared = rows.shared()
            return pending.map { NewEvent(Fields(rows: shared, parts: $0)) }
        }
    }

    /// An event's values, and where its row and the data and metadata in it lie in its batch's rows.
    private struct Parts {
        let eventId: UUID
        let stream, type: String
        let expectedVersion: ExpectedVersion
        let row, data, metadata: Range<Int>
        /// Why the row cannot be sent (a NUL character in a text), when it cannot.
        let problem: String?
    }

    /// Immutable, so shared freely between threads; the row's tail is written in place through ``RenderedRows``.
    private final class Fields: Sendable {
        let rows: RenderedRows
        let parts: Parts

        init(rows: RenderedRows, parts: Parts) {
            (self.rows, self.parts) = (rows, parts)
        }
    }
}

/// An event as stored in the log.
public struct RecordedEvent: Sendable, Equatable {
    public var position: Int64
    public var eventId: UUID
    public var stream: String
    public var version: Int64
    public var type: String
    public var data: Data
    public var metadata: Data
    public var recordedAt: Date
    /// The hashes as stored: ``Verifier`` tells whether they are the ones the chains give.
    public var hash: [UInt8]
    /// The log chain's hash at this event (see ``LogHead``).
    public var logHash: [UInt8]
}

/// What an append did: one result per event, in order, and the head of the log after it.
public struct AppendAnswer: Sendable, Equatable {
    public var results: [AppendResult]
    /// The log's head once the append committed; when it appended nothing, the head it found.
    public var head: LogHead

    public init(results: [AppendResult], head: LogHead) {
        self.results = results
        self.head = head
    }
}

/// An event an append wrote: which of the batch it is, and where the log put it.
public struct AppendedEvent: Sendable, Equatable {
    /// Its index in the appended batch.
    public let index: Int
    public let eventId: UUID
    public let position: Int64
    public let version: Int64
    public let hash: Digest
    public let logHash: Digest
}

/// Why an event was not appended.
public struct AppendConflict: Sendable, Equatable {
    /// A stable code: `wrong_expected_version`, `event_id_reused`, or a domain rule's own.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The answer for one event of a batch, in batch order.
public enum AppendResult: Sendable, Equatable {
    case appended(stream: String, version: Int64, position: Int64)
    /// The event id was stored already with the same content; nothing new was written.
    case duplicate(stream: String, version: Int64, position: Int64)
    case conflict(AppendConflict)
    /// The batch was atomic and another event of it failed, so this one was not written either.
    case notAppended
}

/// Hooks into an append, run in its transaction under the append lock.
public protocol AppendHooks {
    /// Returns the rule that decides, in batch order, each event that passed the version check, given its index in
    /// `events`; a conflict rejects it. It is asked only about the first event with each id. The returned closure
    /// sees only the events admitted before it, so it keeps its own state.
    func rules(for events: [NewEvent], on connection: Connection) throws -> (Int) -> AppendConflict?
    /// Writes what follows from the appended events (the projections), before commit.
    func didAppend(_ events: [AppendedEvent], on connection: Connection) throws
}
