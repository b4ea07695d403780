import Foundation
import LocationEvents
import Postgres

/// One entity an id search found.
public struct EntityMatch: Sendable, Equatable, Hashable {
    public var kind: EntityKind
    public var id: String
}

/// Finds merchants, terminals, enterprises and visits by id: the id itself, then ids that start with it, each read
/// through the index its projection keeps by id.
public struct EntitySearch: Sendable {
    /// The most ids listed of each kind.
    public static let limitPerKind = 20

    public init() {}

    /// The entities whose id is `text` or starts with it, of the kinds asked, exact matches first, then by id.
    /// - Precondition: `text` is a valid id or the start of one (``EntityID/isValid(_:)``).
    public func find(_ text: String, kinds: [EntityKind] = EntityKind.allCases, on connection: Connection) throws -> [EntityMatch] {
        // `_` is a wildcard of LIKE: escaped, so that the pattern is the prefix and nothing else.
        let prefix = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "_", with: "\\_")
            .replacingOccurrences(of: "%", with: "\\%") + "%"
        var matches: [EntityMatch] = []
        for kind in kinds {
            let sql: String
            switch kind {
            case .merchant:
                sql = """
                    SELECT id FROM (
                        (SELECT entity_id AS id FROM projections.latest_fixes WHERE entity_kind = 'merchant' AND entity_id LIKE $1 ORDER BY entity_id LIMIT $2)
                        UNION (SELECT merchant_id FROM projections.terminals WHERE merchant_id LIKE $1 ORDER BY merchant_id LIMIT $2)
                        UNION (SELECT entity_id FROM projections.failures WHERE entity_kind = 'merchant' AND entity_id = $3 LIMIT 1)
                        UNION (SELECT merchant_id FROM projections.visits WHERE merchant_id = $3 LIMIT 1)
                    ) m ORDER BY id <> $3, id LIMIT $2
                    """
            case .terminal:
                sql = """
                    SELECT id FROM (
                        (SELECT terminal_id AS id FROM projections.terminals WHERE terminal_id LIKE $1 ORDER BY terminal_id LIMIT $2)
                        UNION (SELECT entity_id FROM projections.latest_fixes WHERE entity_kind = 'terminal' AND entity_id LIKE $1 ORDER BY entity_id LIMIT $2)
                        UNION (SELECT entity_id FROM projections.failures WHERE entity_kind = 'terminal' AND entity_id = $3 LIMIT 1)
                    ) t ORDER BY id <> $3, id LIMIT $2
                    """
            case .enterprise:
                sql = """
                    SELECT id FROM (
                        (SELECT entity_id AS id FROM projections.fixes WHERE entity_kind = 'enterprise' AND entity_id = $3 LIMIT 1)
                        UNION (SELECT entity_id FROM projections.failures WHERE entity_kind = 'enterprise' AND entity_id = $3 LIMIT 1)
                        UNION (SELECT DISTINCT entity_id FROM projections.fixes WHERE entity_kind = 'enterprise' AND entity_id LIKE $1 LIMIT $2)
                    ) e ORDER BY id <> $3, id LIMIT $2
                    """
            case .visit:
                sql = """
                    SELECT id FROM (
                        (SELECT visit_id AS id FROM projections.visits WHERE visit_id = $3 LIMIT 1)
                        UNION (SELECT entity_id FROM projections.failures WHERE entity_kind = 'visit' AND entity_id = $3 LIMIT 1)
                        UNION (SELECT DISTINCT visit_id FROM projections.visits WHERE visit_id LIKE $1 LIMIT $2)
                    ) v ORDER BY id <> $3, id LIMIT $2
                    """
            }
            for row in try connection.query(sql, [prefix, Self.limitPerKind, text]) {
                matches.append(EntityMatch(kind: kind, id: try row.decode(0)))
            }
        }
        return matches.sorted { ($0.id != text ? 1 : 0, $0.kind.rawValue, $0.id) < ($1.id != text ? 1 : 0, $1.kind.rawValue, $1.id) }
    }
}
