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

/// Reads the current-state projections.
public struct CurrentState: Sendable {
    public init() {}

    public func merchant(_ merchantId: String, on connection: Connection) throws -> MerchantState? {
        guard let row = try connection.query(
            """
            SELECT latest_position, latest_event_id, latest_captured_at, latest_lat, latest_lon, latest_accuracy,
                   latest_horizontal_accuracy, latest_provider, latest_region,
                   precise_position, precise_event_id, precise_captured_at, precise_lat, precise_lon,
                   precise_horizontal_accuracy, precise_provider, precise_region,
                   (SELECT count(*) FROM projections.visits v WHERE v.merchant_id = a.entity_id)
            FROM projections.address_positions a WHERE entity_kind = 'merchant' AND entity_id = $1
            """, [merchantId]
        ).first else { return nil }
        let latest = FixSummary(
            position: try row.decode(0), eventId: try row.decode(1, as: UUID.self).uuidString.lowercased(), capturedAt: try row.decode(2),
            lat: try row.decode(3), lon: try row.decode(4), accuracy: try row.decode(5),
            horizontalAccuracy: try row.decode(6), provider: try row.decode(7), region: try row.decode(8))
        var precise: FixSummary?
        if let position = try row.decode(9, as: Int64?.self) {
            precise = FixSummary(
                position: position, eventId: try row.decode(10, as: UUID.self).uuidString.lowercased(), capturedAt: try row.decode(11),
                lat: try row.decode(12), lon: try row.decode(13), accuracy: "precise",
                horizontalAccuracy: try row.decode(14), provider: try row.decode(15), region: try row.decode(16))
        }
        let terminals = try connection.query(
            """
            SELECT t.terminal_id, t.bound_since,
                   geo_distance_m(t.fix_lat, t.fix_lon, a.precise_lat, a.precise_lon)
            FROM projections.terminals t
            LEFT JOIN projections.address_positions a ON a.entity_kind = 'merchant' AND a.entity_id = t.merchant_id
            WHERE t.merchant_id = $1 ORDER BY t.terminal_id
            """, [merchantId]
        ).map { row in
            MerchantState.BoundTerminal(terminalId: try row.decode(0), boundSince: try row.decode(1), driftMetres: try row.decode(2))
        }
        return MerchantState(
            merchantId: merchantId, addressPosition: precise, latestFix: latest, terminals: terminals,
            visits: try row.decode(17))
    }

    public func terminal(_ terminalId: String, on connection: Connection) throws -> TerminalState? {
        guard let row = try connection.query(
            """
            SELECT t.merchant_id, t.bound_since, t.unbound_at, t.last_merchant_id,
                   t.fix_position, t.fix_event_id, t.fix_captured_at, t.fix_lat, t.fix_lon, t.fix_accuracy,
                   t.fix_horizontal_accuracy, t.fix_provider, t.fix_region,
                   geo_distance_m(t.fix_lat, t.fix_lon, a.precise_lat, a.precise_lon)
            FROM projections.terminals t
            LEFT JOIN projections.address_positions a ON a.entity_kind = 'merchant' AND a.entity_id = t.merchant_id
            WHERE t.terminal_id = $1
            """, [terminalId]
        ).first else { return nil }
        var position: FixSummary?
        if let fixPosition = try row.decode(4, as: Int64?.self) {
            position = FixSummary(
                position: fixPosition, eventId: try row.decode(5, as: UUID.self).uuidString.lowercased(), capturedAt: try row.decode(6),
                lat: try row.decode(7), lon: try row.decode(8), accuracy: try row.decode(9),
                horizontalAccuracy: try row.decode(10), provider: try row.decode(11), region: try row.decode(12))
        }
        return TerminalState(
            terminalId: terminalId, merchantId: try row.decode(0), boundSince: try row.decode(1),
            unboundAt: try row.decode(2), lastMerchantId: try row.decode(3), position: position,
            driftMetres: try row.decode(13))
    }
}
