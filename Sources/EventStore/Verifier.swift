import Foundation
import Postgres

/// The first event whose stored hash, version or position does not follow from the ones before it.
public struct BrokenLink: Sendable, Equatable, CustomStringConvertible {
    public var position: Int64
    public var eventId: UUID
    public var stream: String
    public var version: Int64
    public var reason: String

    public var description: String {
        "event \(eventId.lowercasedText) at position \(position) (stream \(stream), version \(version)): \(reason)"
    }
}

/// What `verify` found.
public struct VerificationReport: Sendable, Equatable {
    public var eventsChecked: Int
    public var streamsChecked: Int
    /// nil when every chain is intact.
    public var firstBrokenLink: BrokenLink?
}

/// Recomputes every stream's hash chain from the stored rows, walking the log in position order.
public struct Verifier: Sendable {
    let pageSize: Int

    public init(pageSize: Int = 5000) {
        self.pageSize = pageSize
    }

    /// - Parameter progress: called after each page with the number of events checked so far.
    public func verify(on connection: Connection, progress: (Int) -> Void = { _ in }) throws -> VerificationReport {
        var lastHash: [String: (version: Int64, hash: [UInt8])] = [:]
        var expectedPosition: Int64 = 1
        var checked = 0
        while true {
            let rows = try connection.query(
                "SELECT \(EventLog.columns) FROM events WHERE position >= $1 ORDER BY position LIMIT $2",
                [expectedPosition, pageSize])
            if rows.count == 0 { break }
            for row in rows {
                let event = try EventLog.recordedEvent(row)
                let recordedAt = Timestamp(microseconds: try row.decode(7))
                func broken(_ reason: String) -> VerificationReport {
                    VerificationReport(
                        eventsChecked: checked, streamsChecked: lastHash.count,
                        firstBrokenLink: BrokenLink(
                            position: event.position, eventId: event.eventId, stream: event.stream,
                            version: event.version, reason: reason))
                }
                if event.position != expectedPosition {
                    return broken("expected global position \(expectedPosition): positions must be gap-free")
                }
                let previous = lastHash[event.stream]
                let expectedVersion = (previous?.version ?? -1) + 1
                if event.version != expectedVersion {
                    return broken("expected stream version \(expectedVersion)")
                }
                let hash = EventHash.chain(
                    previous: previous?.hash ?? EventHash.genesis,
                    canonical: EventHash.canonicalBytes(
                        position: event.position, eventId: event.eventId, stream: event.stream,
                        version: event.version, type: event.type, recordedAt: recordedAt, data: event.data,
                        metadata: event.metadata))
                if hash != event.hash {
                    return broken("stored hash does not match the event's content and its stream's previous hash")
                }
                lastHash[event.stream] = (event.version, hash)
                expectedPosition += 1
                checked += 1
            }
            progress(checked)
        }
        return VerificationReport(eventsChecked: checked, streamsChecked: lastHash.count, firstBrokenLink: nil)
    }
}
