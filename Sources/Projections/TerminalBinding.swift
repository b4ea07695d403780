import Foundation
import Postgres

/// A terminal's row in `terminals`: where the last bind or unbind of its stream left it.
public struct TerminalBinding: Sendable, Equatable {
    /// The bound merchant; nil when unbound.
    public var merchantId: String?
    /// The first bind after the last unbind, by its time (binding again to the same merchant, to re-locate the
    /// terminal, does not restart it).
    public var boundSince: Date?
    /// The merchant of the last bind or unbind.
    public var lastMerchantId: String
    /// The stream version of the last bind or unbind.
    public var version: Int64
    public var unboundAt: Date?

    /// One bind or unbind, as appended.
    public struct Change: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case bind, unbind }
        public let kind: Kind
        public let terminalId: String
        public let merchantId: String
        /// The fix's capture time for a bind; the receive time for an unbind, which carries no fix.
        public let at: Date
    }

    /// The binding after `change`, appended at `version` of the terminal's stream (nil: the terminal had none).
    static func after(_ change: Change, version: Int64, from previous: TerminalBinding?) -> TerminalBinding {
        switch change.kind {
        case .bind:
            let stillBound = previous?.merchantId == change.merchantId
            let since = stillBound ? min(previous?.boundSince ?? change.at, change.at) : change.at
            return TerminalBinding(
                merchantId: change.merchantId, boundSince: since, lastMerchantId: change.merchantId, version: version,
                unboundAt: nil)
        case .unbind:
            return TerminalBinding(
                merchantId: nil, boundSince: nil, lastMerchantId: change.merchantId, version: version, unboundAt: change.at)
        }
    }
}

extension Projector {
    /// Carries the bindings of the events' terminals forward over their binds and unbinds, which must come in
    /// stream order (position order does), and writes the changed ones.
    /// - Parameter stored: the bindings as stored before these events, when already read; read here otherwise.
    public func carryBindings(of events: [ProjectedEvent], stored: [String: TerminalBinding]? = nil, on connection: Connection) throws {
        let changes = events.filter { $0.binding != nil }
        guard !changes.isEmpty else { return }
        let before = try stored ?? bindings(of: Array(Set(changes.map(\.entityId))), on: connection)
        try store(Self.carried(changes, from: before), on: connection)
    }

    /// The bindings the events' binds and unbinds, in stream order, leave their terminals in.
    /// - Parameter before: the terminals' bindings before these events (those that have one).
    /// - Returns: the binding of each terminal the events change.
    public static func carried(_ events: [ProjectedEvent], from before: [String: TerminalBinding]) -> [String: TerminalBinding] {
        var changed: [String: TerminalBinding] = [:]
        for event in events {
            guard let change = event.binding else { continue }
            changed[change.terminalId] = TerminalBinding.after(
                change, version: event.version, from: changed[change.terminalId] ?? before[change.terminalId])
        }
        return changed
    }

    /// The stored bindings of these terminals (those that have one).
    public func bindings(of terminalIds: [String], on connection: Connection) throws -> [String: TerminalBinding] {
        var bindings: [String: TerminalBinding] = [:]
        let rows = try connection.query(
            """
            SELECT terminal_id, merchant_id, bound_since, last_merchant_id, binding_version, unbound_at
            FROM \(schema).terminals WHERE terminal_id = ANY($1::text[])
            """, parameters: [.binary(try BinaryArray(terminalIds))])
        for row in rows {
            bindings[try row.decode(0)] = TerminalBinding(
                merchantId: try row.decode(1), boundSince: try row.decode(2), lastMerchantId: try row.decode(3),
                version: try row.decode(4), unboundAt: try row.decode(5))
        }
        return bindings
    }

    /// Writes the bindings of terminals the table has no row for yet, as replay's fresh table: one binary COPY.
    func insert(_ bindings: [String: TerminalBinding], on connection: Connection) throws {
        guard !bindings.isEmpty else { return }
        try connection.copyFrom(
            """
            COPY \(schema).terminals (terminal_id, merchant_id, bound_since, last_merchant_id, binding_version, unbound_at)
            FROM STDIN WITH (FORMAT binary)
            """, format: .binary
        ) { writer in
            for (terminal, binding) in bindings.sorted(by: { $0.key < $1.key }) {
                try writer.row { row in
                    row.text(terminal)
                    row.text(binding.merchantId)
                    row.timestamp(binding.boundSince)
                    row.text(binding.lastMerchantId)
                    row.integer(binding.version)
                    row.timestamp(binding.unboundAt)
                }
            }
        }
    }

    /// Writes bindings over the stored ones, 10,000 terminals a statement, each column an array in binary.
    public func store(_ bindings: [String: TerminalBinding], on connection: Connection) throws {
        let terminals = bindings.keys.sorted()
        for start in stride(from: 0, to: terminals.count, by: 10_000) {
            let slice = Array(terminals[start..<min(start + 10_000, terminals.count)])
            let rows = slice.map { bindings[$0]! }
            try connection.query(
                """
                INSERT INTO \(schema).terminals
                    (terminal_id, merchant_id, bound_since, last_merchant_id, binding_version, unbound_at)
                SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::bigint[], $6::timestamptz[])
                ON CONFLICT (terminal_id) DO UPDATE SET
                    merchant_id = excluded.merchant_id, bound_since = excluded.bound_since,
                    last_merchant_id = excluded.last_merchant_id, binding_version = excluded.binding_version,
                    unbound_at = excluded.unbound_at
                """,
                parameters: [
                    .binary(try BinaryArray(slice)), .binary(try BinaryArray(rows.map(\.merchantId))),
                    .binary(BinaryArray(timestamps: rows.map(\.boundSince))),
                    .binary(try BinaryArray(rows.map(\.lastMerchantId))), .binary(BinaryArray(rows.map(\.version))),
                    .binary(BinaryArray(timestamps: rows.map(\.unboundAt))),
                ])
        }
    }
}
