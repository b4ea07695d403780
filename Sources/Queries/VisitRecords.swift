import Foundation
import LocationEvents
import Postgres

/// A visit as its records tell it: each record (the newest is its current one), with the fix and the distance
/// from the merchant's address position, and the visit's failed attempts.
public struct VisitState: Sendable, Equatable {
    public var visitId: String
    /// Newest first by capture time; the first is the visit's current record.
    public var records: [Record]
    public var failedAttempts: Int
    /// The ten most recent by capture time, newest first.
    public var recentFailures: [FailureSummary]

    public struct Record: Sendable, Equatable {
        public var position: Int64
        public var eventId: String
        public var merchantId: String
        public var visitorId: String
        public var capturedAt: Date
        /// The note the visitor wrote, as sent.
        public var note: String?
        /// The fix (WGS-84), with the address it was sent with.
        public var fix: FixSummary
        /// Metres from the merchant's address position (its newest precise address fix); nil while it has none.
        public var distanceMetres: Double?
    }
}

/// Reads a visit by its id: the records through the index of visits by id, their fixes by position, the merchants'
/// address positions by key.
public struct VisitRecords: Sendable {
    /// The most records of one visit read.
    public static let limit = 50

    public init() {}

    public func visit(_ visitId: String, on connection: Connection) throws -> VisitState? {
        let rows = try connection.query(
            """
            SELECT v.position, v.event_id, v.merchant_id, v.visitor_id, v.captured_at, v.note,
                   \(CurrentState.fixColumns.replacingOccurrences(of: "l.", with: "f."))
            FROM (SELECT * FROM projections.visits WHERE visit_id = $1 ORDER BY captured_at DESC, event_id DESC LIMIT $2) v
            JOIN projections.fixes f ON f.position = v.position
            ORDER BY v.captured_at DESC, v.event_id DESC
            """, [visitId, Self.limit])
        var records = try rows.map { row in
            VisitState.Record(
                position: try row.decode(0), eventId: try row.decode(1, as: UUID.self).lowercasedText,
                merchantId: try row.decode(2), visitorId: try row.decode(3), capturedAt: try row.decode(4),
                note: try row.decode(5), fix: try CurrentState.fixSummary(row, from: 6), distanceMetres: nil)
        }
        let failures = try CurrentState.failures(kind: "visit", id: visitId, on: connection)
        guard !records.isEmpty || failures.count > 0 else { return nil }
        let texts = try CurrentState.sentTexts(at: records.map(\.position), on: connection)
        let merchants = Array(Set(records.map(\.merchantId))).sorted()
        var addresses: [String: (lat: Double, lon: Double)] = [:]
        if !merchants.isEmpty {
            for row in try connection.query(
                """
                SELECT entity_id, lat, lon FROM projections.latest_fixes
                WHERE entity_kind = 'merchant' AND entity_id = ANY ($1) AND quality = 'precise'
                """, [merchants])
            {
                addresses[try row.decode(0)] = (try row.decode(1), try row.decode(2))
            }
        }
        for index in records.indices {
            records[index].fix.address = texts[records[index].position]?.address ?? nil
            if let address = addresses[records[index].merchantId] {
                let fix = records[index].fix
                records[index].distanceMetres = try connection.query(
                    "SELECT geo_distance_m($1, $2, $3, $4)", [fix.lat, fix.lon, address.lat, address.lon]
                ).first?.decode(0, as: Double.self)
            }
        }
        return VisitState(visitId: visitId, records: records, failedAttempts: failures.count, recentFailures: failures.recent)
    }
}

/// A terminal's bind or unbind, as its stream holds it.
public struct BindingChange: Sendable, Equatable {
    public var position: Int64
    public var eventId: String
    /// True for `TerminalBound`, false for `TerminalUnbound`.
    public var bound: Bool
    public var merchantId: String
    /// A bind: its fix's capture time; an unbind, which has no fix: the server's receive time.
    public var at: Date
    /// An unbind's reason, as sent.
    public var reason: String?
}

/// A terminal's bindings over time: its binds and unbinds, newest first, read through the log's index of the bind
/// and unbind events of each terminal stream.
public struct Bindings: Sendable {
    /// The most changes read.
    public static let limit = 100

    public init() {}

    public func changes(of terminalId: String, on connection: Connection) throws -> [BindingChange] {
        let bound = EventType.terminalBound.rawValue, unbound = EventType.terminalUnbound.rawValue
        return try connection.query(
            """
            SELECT e.position, e.event_id, e.type = '\(bound)', e.data ->> 'merchantId',
                   coalesce((e.data #>> '{fix,capturedAt}')::timestamptz, (\(StoredFields.metadata(.receivedAt, of: "e.metadata")))::timestamptz),
                   e.data ->> 'reason'
            FROM events e
            WHERE e.stream = 'terminal-' || $1 AND e.type IN ('\(bound)', '\(unbound)')
            ORDER BY e.version DESC LIMIT $2
            """, [terminalId, Self.limit]
        ).map { row in
            BindingChange(
                position: try row.decode(0), eventId: try row.decode(1, as: UUID.self).lowercasedText, bound: try row.decode(2),
                merchantId: try row.decode(3), at: try row.decode(4), reason: try row.decode(5))
        }
    }
}

extension CurrentState {
    /// The newest precise fix of each of the terminals that has one, by terminal id.
    public func terminalPositions(_ terminalIds: [String], on connection: Connection) throws -> [String: FixSummary] {
        guard !terminalIds.isEmpty else { return [:] }
        var positions: [String: FixSummary] = [:]
        for row in try connection.query(
            """
            SELECT l.entity_id, \(Self.fixColumns) FROM projections.latest_fixes l
            WHERE l.entity_kind = 'terminal' AND l.entity_id = ANY ($1) AND l.quality = 'precise'
            """, [terminalIds])
        {
            positions[try row.decode(0)] = try Self.fixSummary(row, from: 1)
        }
        return positions
    }
}

extension CurrentState {
    /// A merchant's address position: its newest precise address fix, with the address it was sent with.
    public func addressPosition(ofMerchant merchantId: String, on connection: Connection) throws -> FixSummary? {
        try Self.latestFixes(kind: "merchant", id: merchantId, on: connection).precise
    }
}
