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
}

/// A merchant's address positions and its bound terminals.
public struct MerchantState: Sendable, Equatable, Encodable {
    public var merchantId: String
    /// The address position: the latest precise fix by capture time.
    public var addressPosition: FixSummary?
    /// The latest fix of any quality.
    public var latestFix: FixSummary
    public var terminals: [BoundTerminal]
    public var visits: Int

    public struct BoundTerminal: Sendable, Equatable, Encodable {
        public var terminalId: String
        public var boundSince: Date?
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
    /// The latest device fix (at binding or reported), by capture time.
    public var position: FixSummary?
    /// Distance in metres from the bound merchant's address position; nil when unbound or either is unknown.
    public var driftMetres: Double?
}

/// Reads the current state from the projections. Positions are the newest fixes by (capture time, event id),
/// read through the history's (entity, capture time) index.
public struct CurrentState: Sendable {
    public init() {}

    static let fixColumns = "f.position, f.event_id, f.captured_at, f.lat, f.lon, f.accuracy, f.horizontal_accuracy, f.provider, f.region"

    /// The newest fix of an entity among `types`, optionally only precise ones, as a LATERAL subquery over `kind`
    /// and `id` expressions.
    static func newestFix(kind: String, id: String, types: String, preciseOnly: Bool = false) -> String {
        """
        SELECT \(fixColumns) FROM projections.fixes f
        WHERE f.entity_kind = \(kind) AND f.entity_id = \(id) AND f.event_type IN (\(types))
              \(preciseOnly ? "AND f.accuracy = 'precise'" : "")
        ORDER BY f.captured_at DESC, f.event_id DESC LIMIT 1
        """
    }

    static func fixSummary(_ row: Row, from column: Int) throws -> FixSummary? {
        guard let position = try row.decode(column, as: Int64?.self) else { return nil }
        return FixSummary(
            position: position, eventId: try row.decode(column + 1, as: UUID.self).uuidString.lowercased(),
            capturedAt: try row.decode(column + 2), lat: try row.decode(column + 3), lon: try row.decode(column + 4),
            accuracy: try row.decode(column + 5), horizontalAccuracy: try row.decode(column + 6),
            provider: try row.decode(column + 7), region: try row.decode(column + 8))
    }

    public func merchant(_ merchantId: String, on connection: Connection) throws -> MerchantState? {
        let address = "'MerchantAddressFixed'"
        guard let row = try connection.query(
            """
            SELECT latest.*, precise.*,
                   (SELECT count(DISTINCT visit_id) FROM projections.visits v WHERE v.merchant_id = $1)
            FROM (\(Self.newestFix(kind: "'merchant'", id: "$1", types: address))) latest
            LEFT JOIN LATERAL (\(Self.newestFix(kind: "'merchant'", id: "$1", types: address, preciseOnly: true))) precise ON true
            """, [merchantId]
        ).first, let latest = try Self.fixSummary(row, from: 0) else { return nil }
        let terminals = try connection.query(
            """
            SELECT t.terminal_id, t.bound_since, geo_distance_m(position.lat, position.lon, address.lat, address.lon)
            FROM projections.terminals t
            LEFT JOIN LATERAL (\(Self.newestFix(kind: "'terminal'", id: "t.terminal_id", types: "'TerminalBound', 'TerminalLocated'"))) position ON true
            LEFT JOIN LATERAL (\(Self.newestFix(kind: "'merchant'", id: "t.merchant_id", types: address, preciseOnly: true))) address ON true
            WHERE t.merchant_id = $1 ORDER BY t.terminal_id
            """, [merchantId]
        ).map { row in
            MerchantState.BoundTerminal(terminalId: try row.decode(0), boundSince: try row.decode(1), driftMetres: try row.decode(2))
        }
        return MerchantState(
            merchantId: merchantId, addressPosition: try Self.fixSummary(row, from: 9), latestFix: latest,
            terminals: terminals, visits: try row.decode(18))
    }

    public func terminal(_ terminalId: String, on connection: Connection) throws -> TerminalState? {
        guard let row = try connection.query(
            """
            SELECT t.merchant_id, t.bound_since, t.unbound_at, t.last_merchant_id, position.*,
                   geo_distance_m(position.lat, position.lon, address.lat, address.lon)
            FROM (SELECT $1::text AS terminal_id) k
            LEFT JOIN projections.terminals t ON t.terminal_id = k.terminal_id
            LEFT JOIN LATERAL (\(Self.newestFix(kind: "'terminal'", id: "k.terminal_id", types: "'TerminalBound', 'TerminalLocated'"))) position ON true
            LEFT JOIN LATERAL (\(Self.newestFix(kind: "'merchant'", id: "t.merchant_id", types: "'MerchantAddressFixed'", preciseOnly: true))) address ON true
            """, [terminalId]
        ).first else { return nil }
        let position = try Self.fixSummary(row, from: 4)
        let lastMerchant = try row.decode(3, as: String?.self)
        guard position != nil || lastMerchant != nil else { return nil }
        return TerminalState(
            terminalId: terminalId, merchantId: try row.decode(0), boundSince: try row.decode(1),
            unboundAt: try row.decode(2), lastMerchantId: lastMerchant, position: position,
            driftMetres: try row.decode(13))
    }
}
