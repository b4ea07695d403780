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
    public var eventId: UUID { fields.eventId }
    public var stream: String { fields.stream }
    public var type: String { fields.type }
    /// What the client submitted. Two events with one id are the same event when stream, type and data are equal.
    /// Kept only in the event's rendered COPY columns, and copied out here.
    public var data: Data { rendered.copyColumns.withBytes(in: rendered.data) { Data($0) } }
    /// What the server added. Not part of the idempotency comparison: a resend computes it anew.
    public var metadata: Data { rendered.copyColumns.withBytes(in: rendered.metadata) { Data($0) } }
    public var expectedVersion: ExpectedVersion { fields.expectedVersion }
    /// What can be written of the event before the append gives it a position: its COPY columns, which hold its
    /// data and metadata. Rendered where the event is made; the canonical bytes around them are written as the event
    /// is hashed, and the writer, which holds the lock, adds position, version, time and hashes to the columns.
    var rendered: RenderedEvent { fields.rendered }

    /// - Parameters: data, metadata: canonical JSON bytes (`Data` or `[UInt8]`).
    public init(
        eventId: UUID, stream: String, type: String, data: some ContiguousBytes, metadata: some ContiguousBytes,
        expectedVersion: ExpectedVersion = .any
    ) {
        fields = Fields(
            eventId: eventId, stream: stream, type: type, expectedVersion: expectedVersion,
            rendered: RenderedEvent(eventId: eventId, stream: stream, type: type, data: data, metadata: metadata))
    }

    public static func == (left: NewEvent, right: NewEvent) -> Bool {
        left.fields === right.fields
            || (left.eventId == right.eventId && left.stream == right.stream && left.type == right.type
                && left.data == right.data && left.metadata == right.metadata && left.expectedVersion == right.expectedVersion)
    }

    /// Immutable, so shared freely between threads.
    private final class Fields: Sendable {
        let eventId: UUID
        let stream: String
        let type: String
        let expectedVersion: ExpectedVersion
        let rendered: RenderedEvent

        init(eventId: UUID, stream: String, type: String, expectedVersion: ExpectedVersion, rendered: RenderedEvent) {
            (self.eventId, self.stream, self.type) = (eventId, stream, type)
            (self.expectedVersion, self.rendered) = (expectedVersion, rendered)
        }
    }
}

/// The parts of an event's stored row that do not depend on where it is appended: its first COPY columns, in
/// binary, which hold its data and metadata, the only copy of them the event keeps.
struct RenderedEvent: Sendable, Equatable {
    /// event_id, stream, type, data, metadata: the first COPY columns (see `EventLog.insert`), in binary.
    let copyColumns: CopyRow
    /// Where the data's and the metadata's bytes lie in `copyColumns`.
    let data: Range<Int>
    let metadata: Range<Int>

    init(eventId: UUID, stream: String, type: String, data: some ContiguousBytes, metadata: some ContiguousBytes) {
        (copyColumns, self.data, self.metadata) = data.withUnsafeBytes { data in
            metadata.withUnsafeBytes { metadata in
                let (data, metadata) = (data.bindMemory(to: UInt8.self), metadata.bindMemory(to: UInt8.self))
                var columns = CopyRow(format: .binary)  // binary: the values' bytes lie in the row as given
                // Each field is its 4-byte length and its bytes (a uuid is 16).
                columns.reserveCapacity(5 * 4 + 16 + stream.utf8.count + type.utf8.count + data.count + metadata.count)
                columns.uuid(eventId)
                columns.text(stream)
                columns.text(type)
                columns.bytes(data)
                let dataRange = columns.byteCount - data.count..<columns.byteCount
                columns.bytes(metadata)
                return (columns, dataRange, columns.byteCount - metadata.count..<columns.byteCount)
            }
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
