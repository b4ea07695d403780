import Foundation
import Postgres

/// One fix as the current-state views show it (WGS-84).
public struct FixSummary: Sendable, Equatable, Encodable {
    public var position: Int64
    public var eventId: String
    public var capturedAt: Date
    public var lat: Double
    public var lon: Double
    public var accuracy: String
    public var horizontalAccuracy: Double
    public var provider: String
    public var region: String
    /// Within 1 km of a border between two regions.
    public var nearBoundary: Bool
    /// The client claimed the other side of the region check.
    public var claimMismatch: Bool
    /// The address the fix was sent with: its formatted text, else its parts; nil without one.
    public var address: String?
}

/// A failed attempt to locate, as the current-state views list them.
public struct FailureSummary: Sendable, Equatable, Encodable {
    public var position: Int64
    public var eventId: String
    public var capturedAt: Date
    public var provider: String
    /// The provider's code, as text.
    public var errorCode: String
    /// The category the projection keeps for it.
    public var errorCategory: String
    /// The provider's message, as the app sent it.
    public var errorMessage: String?
    public var app: String?
}

/// A merchant's address positions and its bound terminals.
public struct MerchantState: Sendable, Equatable, Encodable {
    public var merchantId: String
    /// The address position: the latest precise fix by capture time.
    public var addressPosition: FixSummary?
    /// The latest fix of any quality; nil when the merchant is known only through failed attempts, terminals or
    /// visits.
    public var latestFix: FixSummary?
    public var terminals: [BoundTerminal]
    /// Visits whose current record (the newest by capture time) names this merchant.
    public var visits: Int
    /// The ten most recent of them, newest first.
    public var recentVisits: [Visit]
    /// Failed attempts to locate the merchant.
    public var failedAttempts: Int
    /// The ten most recent of them by capture time, newest first.
    public var recentFailures: [FailureSummary]

    public struct Visit: Sendable, Equatable, Encodable {
        public var visitId: String
        public var visitorId: String
        public var capturedAt: Date
        /// Distance in metres from the merchant's address position; nil while it has none.
        public var distanceMetres: Double?
    }

    public struct BoundTerminal: Sendable, Equatable, Encodable {
        public var terminalId: String
        public var boundSince: Date?
        /// Distance in metres from the terminal's latest precise fix to the merchant's address position; nil
        /// while either is unknown.
        public var driftMetres: Double?
    }
}

/// A terminal's binding and position.
public struct TerminalState: Sendable, Equatable, Encodable {
    public var terminalId: String
    /// The merchant it is bound to; nil when unbound.
    public var merchantId: String?
    public var boundSince: Date?
    public var unboundAt: Date?
    /// The merchant of the last bind or unbind.
    public var lastMerchantId: String?
    /// The position: the latest precise device fix (at binding or reported), by capture time.
    public var position: FixSummary?
    /// The latest device fix of any quality.
    public var latestFix: FixSummary?
    /// Distance in metres from ``position``, the latest precise fix, to the bound merchant's address position; nil
    /// when unbound or either is unknown. A fix that is not precise never makes a drift: an IP fix kilometres off
    /// is not a relocated terminal.
    public var driftMetres: Double?
    /// Failed attempts to locate the terminal.
    public var failedAttempts: Int
    /// The ten most recent of them by capture time, newest first.
    public var recentFailures: [FailureSummary]
}

/// Reads the current state from the projections. Positions are read by key from `latest_fixes`, each merchant's and
/// terminal's newest fix and newest precise fix by (capture time, event id), which the projector keeps; failures and
/// visits through their entity's index.
public struct CurrentState: Sendable {
    public init() {}

    static let fixColumns = """
        l.position, l.event_id, l.captured_at, l.lat, l.lon, l.accuracy, l.horizontal_accuracy, l.provider, l.region, \
        l.near_boundary, l.claim_mismatch
        """

    /// An entity's newest fix and newest precise fix, with the addresses they were sent with; nil where it has none.
    static func latestFixes(kind: String, id: String, on connection: Connection) throws -> (latest: FixSummary?, precise: FixSummary?) {
        var latest: FixSummary?
        var precise: FixSummary?
        for row in try connection.query(
            "SELECT l.quality, \(fixColumns) FROM projections.latest_fixes l WHERE l.entity_kind = $1 AND l.entity_id = $2",
            [kind, id])
        {
            let fix = try fixSummary(row, from: 1)
            if try row.decode(0, as: String.self) == "precise" { precise = fix } else { latest = fix }
        }
        let fixes = try withAddresses([latest, precise], on: connection)
        return (fixes[0], fixes[1])
    }

    static func fixSummary(_ row: Row, from column: Int) throws -> FixSummary {
        FixSummary(
            position: try row.decode(column), eventId: try row.decode(column + 1, as: UUID.self).lowercasedText,
            capturedAt: try row.decode(column + 2), lat: try row.decode(column + 3), lon: try row.decode(column + 4),
            accuracy: try row.decode(column + 5), horizontalAccuracy: try row.decode(column + 6),
            provider: try row.decode(column + 7), region: try row.decode(column + 8),
            nearBoundary: try row.decode(column + 9), claimMismatch: try row.decode(column + 10), address: nil)
    }

    /// What the log holds of some events and the projections do not copy: the address each was sent with and a
    /// failed attempt's message, by position. A query of its own on the log's key, so that no query joins the log
    /// with the projections, which a distributed database keeps on different nodes.
    static func sentTexts(at positions: [Int64], on connection: Connection) throws -> [Int64: (address: String?, errorMessage: String?)] {
        guard !positions.isEmpty else { return [:] }
        var texts: [Int64: (address: String?, errorMessage: String?)] = [:]
        for row in try connection.query(
            """
            SELECT e.position, \(StoredFields.addressText(of: "e.data")), \(StoredFields.errorMessage(of: "e.data"))
            FROM events e WHERE e.position = ANY ($1)
            """, [positions])
        {
            texts[try row.decode(0)] = (try row.decode(1), try row.decode(2))
        }
        return texts
    }

    /// The fixes with the addresses they were sent with, from the log.
    static func withAddresses(_ fixes: [FixSummary?], on connection: Connection) throws -> [FixSummary?] {
        let texts = try sentTexts(at: fixes.compactMap { $0?.position }, on: connection)
        return fixes.map { fix in
            fix.map { var fix = $0; fix.address = texts[fix.position]?.address ?? nil; return fix }
        }
    }

    /// How many failed attempts an entity has, and the ten newest by capture time.
    static func failures(kind: String, id: String, on connection: Connection) throws -> (count: Int, recent: [FailureSummary]) {
        let rows = try connection.query(
            """
            SELECT fl.position, fl.event_id, fl.captured_at, fl.provider, fl.error_code, fl.category, NULL::text, fl.app,
                   count(*) OVER ()
            FROM projections.failures fl
            WHERE fl.entity_kind = '\(kind)' AND fl.entity_id = $1
            ORDER BY fl.captured_at DESC, fl.event_id DESC LIMIT 10
            """, [id])
        var recent = try rows.map { row in
            FailureSummary(
                position: try row.decode(0), eventId: try row.decode(1, as: UUID.self).lowercasedText,
                capturedAt: try row.decode(2), provider: try row.decode(3), errorCode: try row.decode(4),
                errorCategory: try row.decode(5), errorMessage: try row.decode(6), app: try row.decode(7))
        }
        let texts = try sentTexts(at: recent.map(\.position), on: connection)
        for index in recent.indices { recent[index].errorMessage = texts[recent[index].position]?.errorMessage ?? nil }
        return (try rows.first?.decode(8, as: Int.self) ?? 0, recent)
    }

    public func merchant(_ merchantId: String, on connection: Connection) throws -> MerchantState? {
        let (latest, addressPosition) = try Self.latestFixes(kind: "merchant", id: merchantId, on: connection)
        // Each bound terminal's newest precise fix, joined on the terminal's id: a query that runs by entity on a
        // distributed database too, where the drift is measured to the address read above.
        let terminals = try connection.query(
            """
            SELECT t.terminal_id, t.bound_since, geo_distance_m(p.lat, p.lon, $2, $3)
            FROM projections.terminals t
            LEFT JOIN projections.latest_fixes p
                   ON p.entity_id = t.terminal_id AND p.entity_kind = 'terminal' AND p.quality = 'precise'
            WHERE t.merchant_id = $1 ORDER BY t.terminal_id
            """, [merchantId, addressPosition?.lat, addressPosition?.lon]
        ).map { row in
            MerchantState.BoundTerminal(terminalId: try row.decode(0), boundSince: try row.decode(1), driftMetres: try row.decode(2))
        }
        // A visit's current record, then the merchant's ten newest, then their fixes (a visit's fix has the visit's
        // id as its entity): each step by entity, as a distributed database runs them.
        let visits = try connection.query(
            """
            WITH current AS MATERIALIZED (
                SELECT DISTINCT ON (v.visit_id) v.visit_id, v.merchant_id, v.visitor_id, v.captured_at, v.position
                FROM projections.visits v
                WHERE v.visit_id IN (SELECT visit_id FROM projections.visits WHERE merchant_id = $1)
                ORDER BY v.visit_id, v.captured_at DESC, v.event_id DESC
            ), recent AS MATERIALIZED (
                SELECT c.*, count(*) OVER () AS visits FROM current c WHERE c.merchant_id = $1
                ORDER BY c.captured_at DESC, c.visit_id LIMIT 10
            )
            SELECT r.visit_id, r.visitor_id, r.captured_at, geo_distance_m(f.lat, f.lon, $2, $3), r.visits
            FROM recent r JOIN projections.fixes f ON f.entity_id = r.visit_id AND f.position = r.position
            ORDER BY r.captured_at DESC, r.visit_id
            """, [merchantId, addressPosition?.lat, addressPosition?.lon])
        let recentVisits = try visits.map { row in
            MerchantState.Visit(
                visitId: try row.decode(0), visitorId: try row.decode(1), capturedAt: try row.decode(2),
                distanceMetres: try row.decode(3))
        }
        let failures = try Self.failures(kind: "merchant", id: merchantId, on: connection)
        guard latest != nil || failures.count > 0 || !terminals.isEmpty || !recentVisits.isEmpty else { return nil }
        return MerchantState(
            merchantId: merchantId, addressPosition: addressPosition, latestFix: latest,
            terminals: terminals, visits: try visits.first?.decode(4, as: Int.self) ?? 0, recentVisits: recentVisits,
            failedAttempts: failures.count, recentFailures: failures.recent)
    }

    public func terminal(_ terminalId: String, on connection: Connection) throws -> TerminalState? {
        // The binding, then the terminal's newest precise fix and newest fix, by the terminal's id; then the drift to
        // its merchant's address, by the merchant's id: each query by one entity, as a distributed database runs them.
        let binding = try connection.query(
            "SELECT merchant_id, bound_since, unbound_at, last_merchant_id FROM projections.terminals WHERE terminal_id = $1",
            [terminalId]
        ).first { _ in true }
        let (latest, position) = try Self.latestFixes(kind: "terminal", id: terminalId, on: connection)
        let lastMerchant = try binding?.decode(3, as: String?.self)
        let failures = try Self.failures(kind: "terminal", id: terminalId, on: connection)
        guard latest != nil || lastMerchant != nil || failures.count > 0 else { return nil }
        let merchantId = try binding?.decode(0, as: String?.self)
        var drift: Double?
        if let position, let merchantId {
            drift = try connection.query(
                """
                SELECT geo_distance_m($2, $3, l.lat, l.lon) FROM projections.latest_fixes l
                WHERE l.entity_kind = 'merchant' AND l.entity_id = $1 AND l.quality = 'precise'
                """, [merchantId, position.lat, position.lon]
            ).first?.decode(0, as: Double?.self)
        }
        return TerminalState(
            terminalId: terminalId, merchantId: merchantId, boundSince: try binding?.decode(1),
            unboundAt: try binding?.decode(2), lastMerchantId: lastMerchant, position: position, latestFix: latest,
            driftMetres: drift, failedAttempts: failures.count, recentFailures: failures.recent)
    }
}
