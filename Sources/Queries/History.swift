import Foundation
import LocationEvents
import Postgres

/// What a history lists.
public enum HistorySubject: Sendable, Equatable {
    /// A merchant's address fixes and failed attempts.
    case merchant(String)
    /// A terminal's fixes (at binding and reported) and failed attempts, with its unbinds: its bindings over time.
    case terminal(String)
    /// An enterprise's address fixes and failed attempts.
    case enterprise(String)
    /// The visit records naming a merchant, with the failed attempts of those visits.
    case visitsToMerchant(String)
    /// The visit records of a visitor, with the failed attempts of those visits.
    case visitsBy(String)
}

/// Which rows of a history one page holds: a time range of capture times, at most `limit` rows, after `cursor`.
public struct HistoryRange: Sendable, Equatable {
    /// The earliest capture time listed, included; nil: no bound.
    public var since: Date?
    /// The capture time before which the listing ends, excluded; nil: no bound.
    public var until: Date?
    /// Rows on the page, within ``limits``.
    public var limit: Int
    /// Where the previous page ended; nil for the first page.
    public var cursor: HistoryCursor?

    public static let defaultLimit = 100
    public static let limits = 1...10_000

    /// - Precondition: `limit` is within ``limits``.
    public init(since: Date? = nil, until: Date? = nil, limit: Int = HistoryRange.defaultLimit, cursor: HistoryCursor? = nil) {
        precondition(Self.limits.contains(limit), "a page holds 1 to 10,000 rows")
        (self.since, self.until, self.limit, self.cursor) = (since, until, limit, cursor)
    }
}

/// Where a page of a history ended: its last row's capture time and event id, the order rows are listed in. Opaque
/// to users, who hand back the text a page gave them.
public struct HistoryCursor: Sendable, Equatable, CustomStringConvertible {
    /// The capture time, in microseconds since 1970 (as the database keeps it, so nothing is rounded).
    let microseconds: Int64
    let eventId: UUID

    init(microseconds: Int64, eventId: UUID) {
        (self.microseconds, self.eventId) = (microseconds, eventId)
    }

    /// Reads the text ``description`` wrote; nil when `text` is not one.
    public init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.utf8.count <= 80, let data = Data(base64Encoded: base64),
              let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "h1", let microseconds = Int64(parts[1]),
              let eventId = UUID(uuidString: String(parts[2])) else { return nil }
        self.init(microseconds: microseconds, eventId: eventId)
    }

    /// URL- and shell-safe text (unpadded base64url).
    public var description: String {
        Data("h1 \(microseconds) \(eventId.uuidString.lowercased())".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// One row of a history: a fix, a failed attempt or an unbind, with what the log holds of it.
public struct HistoryEntry: Sendable, Equatable, Encodable {
    public var position: Int64
    public var eventId: String
    public var eventType: String
    /// The device's capture time; for an unbind, which has no fix, the server's receive time.
    public var capturedAt: Date
    /// WGS-84.
    public var lat: Double?
    public var lon: Double?
    public var gcj02Lat: Double?
    public var gcj02Lon: Double?
    public var horizontalAccuracy: Double?
    /// `precise`, `approximate`, `unusable`.
    public var accuracy: String?
    public var accuracyAuthorization: String?
    /// The fix's provider, or the failed attempt's.
    public var provider: String?
    public var region: String?
    public var nearBoundary: Bool?
    public var claimMismatch: Bool?
    /// The address as sent: its formatted text, else its parts.
    public var address: String?
    public var adcode: String?
    public var app: String?
    public var userId: String?
    public var errorCode: String?
    /// The failure's category, as the projection keeps it.
    public var errorCategory: String?
    public var errorMessage: String?
    /// A terminal's bind or unbind: the merchant; a visit: the merchant visited.
    public var merchantId: String?
    public var visitId: String?
    public var visitorId: String?
    /// A visit: the distance in metres from the merchant's address position; nil while it has none.
    public var distanceMetres: Double?
}

/// A page of a history, newest first.
public struct HistoryPage: Sendable, Equatable {
    public var entries: [HistoryEntry]
    /// Where the next page starts; nil when this page is the last.
    public var next: HistoryCursor?
}

/// Reads histories from the projections and the log: every fix and failed attempt of a subject, newest first by
/// (capture time, event id), a page at a time. Each part is read through an index in that order and stops at the
/// page's end; only the page's rows are then read from the log, by position, for what the history tables do not
/// keep (the GCJ-02 position, the address, the user, the error message).
public struct History: Sendable {
    public init() {}

    public func page(of subject: HistorySubject, _ range: HistoryRange, on connection: Connection) throws -> HistoryPage {
        let query = Query(subject, range)
        let rows = try connection.query(query.sql, query.parameters)
        var page = try rows.map { row in
            PageRow(source: try row.decode(0), position: try row.decode(1), microseconds: try row.decode(2),
                    eventId: try row.decode(3), at: try row.decode(4))
        }
        var next: HistoryCursor?
        if page.count > range.limit {
            page.removeLast(page.count - range.limit)
            next = HistoryCursor(microseconds: page[range.limit - 1].microseconds, eventId: page[range.limit - 1].eventId)
        }
        return HistoryPage(entries: try Self.entries(of: page, visits: query.isVisits, on: connection), next: next)
    }

    /// The plan the database runs the page's query with, executed (`EXPLAIN (ANALYZE, BUFFERS)`), a line each.
    public func plan(of subject: HistorySubject, _ range: HistoryRange, on connection: Connection) throws -> [String] {
        let query = Query(subject, range)
        return try connection.query("EXPLAIN (ANALYZE, BUFFERS) " + query.sql, query.parameters).map { try $0.decode(0) }
    }

    /// A row of the page's query: which part it comes from (`fix`, `failure`, `unbind`), and its place in the order.
    private struct PageRow {
        let source: String
        let position: Int64
        let microseconds: Int64
        let eventId: UUID
        let at: Date
    }

    /// The page's rows with what the log, the fixes, the failures and the visits hold of them: a query each, by the
    /// page's positions, so that no query joins the log with the projections, which a distributed database keeps
    /// on different nodes; a visit's distance from its merchant's address position, by the merchants' ids.
    private static func entries(of page: [PageRow], visits isVisits: Bool, on connection: Connection) throws -> [HistoryEntry] {
        guard !page.isEmpty else { return [] }
        func positions(_ source: String?) -> [Int64] { page.filter { source == nil || $0.source == source }.map(\.position) }
        func rows(_ sql: String, _ positions: [Int64]) throws -> [Int64: Row] {
            guard !positions.isEmpty else { return [:] }
            var rows: [Int64: Row] = [:]
            for row in try connection.query(sql, [positions]) { rows[try row.decode(0)] = row }
            return rows
        }
        let bindings = [EventType.terminalBound, .terminalUnbound].map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let events = try rows(
            """
            SELECT e.position, e.type, \(StoredFields.metadataNumber(.gcj02Lat, of: "e.metadata")),
                   \(StoredFields.metadataNumber(.gcj02Lon, of: "e.metadata")), \(StoredFields.addressText(of: "e.data")),
                   \(StoredFields.metadata(.app, of: "e.metadata")), \(StoredFields.userId(of: "e.data")),
                   \(StoredFields.errorMessage(of: "e.data")),
                   CASE WHEN e.type IN (\(bindings)) THEN e.data ->> 'merchantId' END
            FROM events e WHERE e.position = ANY ($1)
            """, positions(nil))
        let fixes = try rows(
            """
            SELECT f.position, f.lat, f.lon, f.horizontal_accuracy, f.accuracy, f.accuracy_authorization, f.provider,
                   f.region, f.near_boundary, f.claim_mismatch, f.adcode
            FROM projections.fixes f WHERE f.position = ANY ($1)
            """, positions("fix"))
        let failures = try rows(
            """
            SELECT fl.position, fl.provider, fl.error_code, fl.category, CASE WHEN fl.entity_kind = 'visit' THEN fl.entity_id END
            FROM projections.failures fl WHERE fl.position = ANY ($1)
            """, positions("failure"))
        let visits = try rows(
            "SELECT v.position, v.merchant_id, v.visit_id, v.visitor_id FROM projections.visits v WHERE v.position = ANY ($1)",
            positions("fix"))
        var entries: [HistoryEntry] = []
        for row in page {
            guard let event = events[row.position] else { throw QueryError.missingEvent(position: row.position) }
            let fix = fixes[row.position]
            let failure = failures[row.position]
            let visit = visits[row.position]
            entries.append(HistoryEntry(
                position: row.position, eventId: row.eventId.lowercasedText, eventType: try event.decode(1), capturedAt: row.at,
                lat: try fix?.decode(1), lon: try fix?.decode(2), gcj02Lat: try event.decode(2), gcj02Lon: try event.decode(3),
                horizontalAccuracy: try fix?.decode(3), accuracy: try fix?.decode(4), accuracyAuthorization: try fix?.decode(5),
                provider: try fix?.decode(6, as: String.self) ?? failure?.decode(1), region: try fix?.decode(7),
                nearBoundary: try fix?.decode(8), claimMismatch: try fix?.decode(9), address: try event.decode(4),
                adcode: try fix?.decode(10, as: String?.self) ?? nil, app: try event.decode(5), userId: try event.decode(6),
                errorCode: try failure?.decode(2), errorCategory: try failure?.decode(3),
                errorMessage: failure == nil ? nil : try event.decode(7),
                merchantId: try visit?.decode(1, as: String.self) ?? event.decode(8),
                visitId: try visit?.decode(2, as: String.self) ?? failure?.decode(4, as: String?.self) ?? nil,
                visitorId: try visit?.decode(3), distanceMetres: nil))
        }
        if isVisits { try measureVisits(&entries, on: connection) }
        return entries
    }

    /// Sets each visit's distance from its merchant's address position (its newest precise address fix), where both
    /// are known: the merchants' positions by their ids, then the distances computed by the database.
    private static func measureVisits(_ entries: inout [HistoryEntry], on connection: Connection) throws {
        let merchants = Array(Set(entries.compactMap { $0.lat == nil ? nil : $0.merchantId })).sorted()
        guard !merchants.isEmpty else { return }
        var addresses: [String: (lat: Double, lon: Double)] = [:]
        for row in try connection.query(
            """
            SELECT DISTINCT ON (f.entity_id) f.entity_id, f.lat, f.lon FROM projections.fixes f
            WHERE f.entity_kind = 'merchant' AND f.entity_id = ANY ($1)
              AND f.event_type = '\(EventType.merchantAddressFixed.rawValue)' AND f.accuracy = 'precise'
            ORDER BY f.entity_id, f.captured_at DESC, f.event_id DESC
            """, [merchants])
        {
            addresses[try row.decode(0)] = (try row.decode(1), try row.decode(2))
        }
        let measured = entries.indices.filter { entries[$0].lat != nil && entries[$0].merchantId.flatMap { addresses[$0] } != nil }
        guard !measured.isEmpty else { return }
        let measuredAddresses = measured.map { addresses[entries[$0].merchantId!]! }
        let distances = try connection.query(
            """
            SELECT geo_distance_m(x.lat, x.lon, x.address_lat, x.address_lon)
            FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[]) WITH ORDINALITY x (lat, lon, address_lat, address_lon, n)
            ORDER BY x.n
            """, [measured.map { entries[$0].lat! }, measured.map { entries[$0].lon! }, measuredAddresses.map(\.lat),
                  measuredAddresses.map(\.lon)])
        for (index, row) in zip(measured, distances) { entries[index].distanceMetres = try row.decode(0) }
    }

    /// The SQL of a page's rows (source, position, capture time in microseconds, event id, capture time) and its
    /// parameters: `$1` is the subject's id, the range's bounds follow.
    struct Query {
        private(set) var parameters: [(any PostgresEncodable)?]
        private(set) var sql = ""
        /// Whether the page lists visits, whose distances from their merchant's address are measured.
        private(set) var isVisits = false

        init(_ subject: HistorySubject, _ range: HistoryRange) {
            parameters = [subject.id]
            let limit = placeholder(range.limit + 1)
            let since = range.since.map { placeholder($0) }
            let until = range.until.map { placeholder($0) }
            let cursor = range.cursor.map { (at: placeholder($0.microseconds), id: placeholder($0.eventId)) }
            /// One part of the history: its rows' position, time and event id, newest first, at most a page.
            func part(_ source: String, from table: String, where conditions: [String], time: String, eventId: String) -> String {
                var conditions = conditions
                if let since { conditions.append("\(time) >= \(since)") }
                if let until { conditions.append("\(time) < \(until)") }
                if let cursor {
                    conditions.append(
                        "(\(time), \(eventId)) < ('1970-01-01T00:00:00Z'::timestamptz + \(cursor.at)::bigint * interval '1 microsecond', \(cursor.id)::uuid)")
                }
                return """
                    (SELECT '\(source)'::text AS source, \(table.split(separator: " ").last!).position, \(time) AS at, \(eventId) AS event_id
                     FROM \(table) WHERE \(conditions.joined(separator: " AND "))
                     ORDER BY \(time) DESC, \(eventId) DESC LIMIT \(limit))
                    """
            }
            func fixes(of kind: String) -> String {
                part("fix", from: "projections.fixes f", where: ["f.entity_kind = '\(kind)'", "f.entity_id = $1"],
                     time: "f.captured_at", eventId: "f.event_id")
            }
            func failures(of kind: String, ids: String = "= $1") -> String {
                part("failure", from: "projections.failures fl", where: ["fl.entity_kind = '\(kind)'", "fl.entity_id \(ids)"],
                     time: "fl.captured_at", eventId: "fl.event_id")
            }
            func visits(_ column: String) -> [String] {
                [part("fix", from: "projections.visits v", where: ["v.\(column) = $1"], time: "v.captured_at", eventId: "v.event_id"),
                 failures(of: "visit", ids: "IN (SELECT visit_id FROM projections.visits WHERE \(column) = $1)")]
            }
            let parts: [String]
            switch subject {
            case .merchant: parts = [fixes(of: "merchant"), failures(of: "merchant")]
            case .enterprise: parts = [fixes(of: "enterprise"), failures(of: "enterprise")]
            case .terminal:
                let receivedAt = "(\(StoredFields.metadata(.receivedAt, of: "e.metadata")))::timestamptz"
                parts = [
                    fixes(of: "terminal"), failures(of: "terminal"),
                    part("unbind", from: "events e", where: ["e.stream = 'terminal-' || $1", "e.type = '\(EventType.terminalUnbound.rawValue)'"],
                         time: receivedAt, eventId: "e.event_id"),
                ]
            case .visitsToMerchant: parts = visits("merchant_id")
            case .visitsBy: parts = visits("visitor_id")
            }
            isVisits = switch subject {
            case .visitsToMerchant, .visitsBy: true
            default: false
            }
            sql = """
                SELECT p.source, p.position, (extract(epoch FROM p.at) * 1000000)::bigint, p.event_id, p.at FROM (
                \(parts.joined(separator: "\nUNION ALL\n"))
                ) p ORDER BY p.at DESC, p.event_id DESC LIMIT \(limit)
                """
        }

        /// Adds a parameter and answers its placeholder.
        private mutating func placeholder(_ value: any PostgresEncodable) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
    }
}

extension HistorySubject {
    /// The merchant's, terminal's, enterprise's or visitor's id.
    var id: String {
        switch self {
        case .merchant(let id), .terminal(let id), .enterprise(let id), .visitsToMerchant(let id), .visitsBy(let id): id
        }
    }
}

