import CivilCalendar
import Foundation
import Postgres

/// The first event whose stored hashes, version or position do not follow from the ones before it.
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

/// Whether the log still holds a head kept from before.
public enum HeadCheck: Sendable, Equatable {
    case held
    /// The log ends before the kept head's position; carries the log's head.
    case logEndsBefore(LogHead)
    /// At the kept head's position the log has another log hash: carries the log's head there.
    case differs(LogHead)
}

/// What `verify` found.
public struct VerificationReport: Sendable, Equatable {
    public var eventsChecked: Int
    public var streamsChecked: Int
    /// nil when every chain is intact.
    public var firstBrokenLink: BrokenLink?
    /// The head of the log as far as it was checked intact: the whole log's head when nothing is broken.
    public var head: LogHead
    /// Whether the log holds the head it was asked about; nil when not asked, or when a broken link came before the
    /// head's position.
    public var keptHead: HeadCheck?
}

/// Recomputes every stream's hash chain and the log chain from the stored rows, walking the log in position order.
public struct Verifier: Sendable {
    let pageSize: Int

    public init(pageSize: Int = 5000) {
        self.pageSize = pageSize
    }

    /// - Parameters:
    ///   - kept: a head kept from before, to check that the log still holds it: that its event at that position has
    ///     the same log hash. Events appended since do not matter.
    ///   - progress: called after each page with the number of events checked so far.
    public func verify(
        on connection: Connection, holding kept: LogHead? = nil, progress: (Int) -> Void = { _ in }
    ) throws -> VerificationReport {
        var lastHash: [String: (version: Int64, hash: Digest)] = [:]
        var head = LogHead.empty
        var keptHead: HeadCheck?
        func check(_ kept: LogHead?, at head: LogHead) {
            guard let kept, kept.position == head.position else { return }
            keptHead = kept.hash == head.hash ? .held : .differs(head)
        }
        check(kept, at: head)
        var checked = 0
        while true {
            let rows = try connection.query(
                "SELECT \(EventLog.columns) FROM events WHERE position > $1 ORDER BY position LIMIT $2",
                [head.position, pageSize])
            if rows.count == 0 { break }
            for row in rows {
                let event = try EventLog.recordedEvent(row)
                let recordedAt = Timestamp(microseconds: try row.decode(7))
                func broken(_ reason: String) -> VerificationReport {
                    VerificationReport(
                        eventsChecked: checked, streamsChecked: lastHash.count,
                        firstBrokenLink: BrokenLink(
                            position: event.position, eventId: event.eventId, stream: event.stream,
                            version: event.version, reason: reason),
                        head: head, keptHead: keptHead)
                }
                if event.position != head.position + 1 {
                    return broken("expected global position \(head.position + 1): positions must be gap-free")
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
                if !hash.isEqual(to: event.hash) {
                    return broken("stored hash does not match the event's content and its stream's previous hash")
                }
                let logHash = EventHash.logChain(previous: head.hash, hash: hash)
                if !logHash.isEqual(to: event.logHash) {
                    return broken("stored log hash does not match the event's hash and the log hash before it")
                }
                lastHash[event.stream] = (event.version, hash)
                head = LogHead(position: event.position, hash: logHash)
                check(kept, at: head)
                checked += 1
            }
            progress(checked)
        }
        if kept != nil && keptHead == nil { keptHead = .logEndsBefore(head) }
        return VerificationReport(
            eventsChecked: checked, streamsChecked: lastHash.count, firstBrokenLink: nil, head: head, keptHead: keptHead)
    }
}
