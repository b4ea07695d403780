import EventStore
import Foundation
import LocationEvents
import Postgres

/// Writes what a batch of events adds to the read models.
///
/// One code path for both uses: the projector's batches as the log grows, each in the transaction that advances its
/// checkpoint (``ProjectorRunner``); and `replay`, over the whole log into fresh tables. The tables come out the same whatever order the events arrived in and however the log is cut into
/// batches: history rows are keyed by position, and each terminal's binding is carried forward over its binds and
/// unbinds in stream order (``TerminalBinding``). Current positions are read from the history by capture time
/// (``CurrentState``), so there is nothing to reorder.
public struct Projector: Sendable {
    /// The schema written: `projections`, or replay's fresh copy.
    let schema: String

    public static let live = Projector(schema: "projections")

    init(schema: String) {
        self.schema = schema
    }

    /// Projects the stored events with positions in `range`, reading them from the log.
    public func project(_ range: ClosedRange<Int64>, on connection: Connection) throws {
        try project(try Self.read(range, on: connection), on: connection)
    }

    public func project(_ events: [ProjectedEvent], on connection: Connection) throws {
        try projectHistory(events, on: connection)
        try carryBindings(of: events, on: connection)
    }

    /// The history tables (fixes, failures, visits) and the summaries counted from them, without the bindings, which
    /// the append writes itself (replay carries them forward once all its chunks are read).
    public func projectHistory(_ events: [ProjectedEvent], on connection: Connection) throws {
        try copyHistory(events, on: connection)
        var totals = SummaryTotals(batchOf: events.count)
        totals.add(events)
        try totals.upsert(into: schema, on: connection)
    }

    /// The history tables' rows alone: each keyed by its event's position, so that replay's chunks write theirs side
    /// by side.
    public func copyHistory(_ events: [ProjectedEvent], on connection: Connection) throws {
        try copy(events, \.fix, into: "fixes", columns: Self.fixColumns, row: Self.fixRow, on: connection)
        try copy(events, \.failure, into: "failures", columns: Self.failureColumns, row: Self.failureRow, on: connection)
        try copy(events, \.visit, into: "visits", columns: Self.visitColumns, row: Self.visitRow, on: connection)
    }

    /// COPYs a row for each event with a `part` for the table, written straight into the COPY's buffer, followed by
    /// the event's position: in binary, which the server stores without parsing.
    private func copy<Part>(
        _ events: [ProjectedEvent], _ part: (ProjectedEvent) -> Part?, into table: String, columns: String,
        row write: (ProjectedEvent, Part, inout CopyRow) -> Void, on connection: Connection
    ) throws {
        guard events.contains(where: { part($0) != nil }) else { return }
        try connection.copyFrom("COPY \(schema).\(table) (\(columns), position) FROM STDIN WITH (FORMAT binary)", format: .binary) { writer in
            for event in events {
                guard let value = part(event) else { continue }
                try writer.row { row in
                    write(event, value, &row)
                    row.integer(event.position)
                }
            }
        }
    }

    static let fixColumns = """
        event_id, event_type, entity_kind, entity_id, captured_at, lat, lon, horizontal_accuracy, \
        accuracy_authorization, accuracy, provider, region, near_boundary, claim_mismatch, adcode, app, os, platform
        """
    static let failureColumns = "event_id, entity_kind, entity_id, provider, error_code, category, captured_at, app, platform, os"
    /// A visit record carries its own fix's position, provider and app, for the visit-distance report.
    static let visitColumns = "event_id, visit_id, merchant_id, visitor_id, note, captured_at, lat, lon, provider, app"

    /// An event's row in `fixes`, all columns but the position.
    static func fixRow(_ event: ProjectedEvent, _ fix: ProjectedEvent.Fix, into row: inout CopyRow) {
        row.uuid(event.eventId)
        row.text(event.type)
        row.text(event.entityKind)
        row.text(event.entityId)
        row.timestamp(event.capturedAt)
        row.double(fix.lat)
        row.double(fix.lon)
        row.double(fix.horizontalAccuracy)
        row.text(fix.authorization.rawValue)
        row.text(fix.accuracy.rawValue)
        row.text(fix.provider.rawValue)
        row.text(fix.region.rawValue)
        row.bool(fix.nearBoundary)
        row.bool(fix.claimMismatch)
        row.text(fix.adcode)
        row.text(event.app)
        row.text(event.os)
        row.text(Platform.text(event.platform))
    }

    /// An event's row in `failures`, all columns but the position.
    static func failureRow(_ event: ProjectedEvent, _ failure: ProjectedEvent.Failure, into row: inout CopyRow) {
        row.uuid(event.eventId)
        row.text(event.entityKind)
        row.text(event.entityId)
        row.text(failure.provider)
        row.text(failure.errorCode)
        row.text(failure.category)
        row.timestamp(event.capturedAt)
        row.text(event.app)
        row.text(failure.platform)
        row.text(event.os)
    }

    /// An event's row in `visits`, all columns but the position.
    static func visitRow(_ event: ProjectedEvent, _ visit: ProjectedEvent.Visit, into row: inout CopyRow) {
        row.uuid(event.eventId)
        row.text(event.entityId)
        row.text(visit.merchantId)
        row.text(visit.visitorId)
        row.text(visit.note)
        row.timestamp(event.capturedAt)
        if let fix = event.fix {
            row.double(fix.lat)
            row.double(fix.lon)
            row.text(fix.provider.rawValue)
        } else {
            row.null()
            row.null()
            row.null()
        }
        row.text(event.app)
    }

    /// The stored events of a range, as the projections read them: metadata and data.
    static func read(_ range: ClosedRange<Int64>, on connection: Connection) throws -> [ProjectedEvent] {
        try read(
            "position BETWEEN $1 AND $2 ORDER BY position", [range.lowerBound, range.upperBound], on: connection)
    }

    /// The stored events after `position`, at most `limit`, as far as their positions run on without a gap (the
    /// feed's rule, ``EventLog/readAll(after:limit:on:)``).
    static func read(after position: Int64, limit: Int, on connection: Connection) throws -> [ProjectedEvent] {
        let page = try read("position > $1 ORDER BY position LIMIT $2", [position, Int64(limit)], on: connection)
        return EventLog.gapFree(page, after: position, position: \.position)
    }

    private static func read(_ condition: String, _ parameters: [Int64], on connection: Connection) throws -> [ProjectedEvent] {
        try connection.query(
            """
            SELECT position, version, event_id, stream, type, metadata::text, data::text
            FROM events WHERE \(condition)
            """, parameters
        ).map { row in
            let (position, version, eventId, stream, type) = (
                try row.decode(0, as: Int64.self), try row.decode(1, as: Int64.self), try row.decode(2, as: UUID.self),
                try row.decode(3, as: String.self), try row.decode(4, as: String.self))
            return try row.withBytes(5) { metadata in
                try row.withBytes(6) { data in
                    guard let metadata else { throw ProjectionError(position, "metadata is NULL") }
                    return try ProjectedEvent(
                        position: position, version: version, eventId: eventId, stream: stream, type: type,
                        metadata: metadata, data: data)
                }
            }
        }
    }
}
