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
        var entries = try rows.map(Self.entry)
        var next: HistoryCursor?
        if entries.count > range.limit {
            entries.removeLast(entries.count - range.limit)
            let last = rows[range.limit - 1]
            next = HistoryCursor(microseconds: try last.decode(1), eventId: try last.decode(2))
        }
        return HistoryPage(entries: entries, next: next)
    }

    /// The plan the database runs the page's query with, executed (`EXPLAIN (ANALYZE, BUFFERS)`), a line each.
    public func plan(of subject: HistorySubject, _ range: HistoryRange, on connection: Connection) throws -> [String] {
        let query = Query(subject, range)
        return try connection.query("EXPLAIN (ANALYZE, BUFFERS) " + query.sql, query.parameters).map { try $0.decode(0) }
    }

    private static func entry(_ row: Row) throws -> HistoryEntry {
        HistoryEntry(
            position: try row.decode(0), eventId: try row.decode(2, as: UUID.self).lowercasedText,
            eventType: try row.decode(3), capturedAt: try row.decode(4),
            lat: try row.decode(5), lon: try row.decode(6), gcj02Lat: try row.decode(7), gcj02Lon: try row.decode(8),
            horizontalAccuracy: try row.decode(9), accuracy: try row.decode(10), accuracyAuthorization: try row.decode(11),
            provider: try row.decode(12), region: try row.decode(13), nearBoundary: try row.decode(14),
            claimMismatch: try row.decode(15), address: try row.decode(16), adcode: try row.decode(17),
            app: try row.decode(18), userId: try row.decode(19), errorCode: try row.decode(20),
            errorCategory: try row.decode(21), errorMessage: try row.decode(22), merchantId: try row.decode(23),
            visitId: try row.decode(24), visitorId: try row.decode(25), distanceMetres: try row.decode(26))
    }

    /// The SQL of a page and its parameters: `$1` is the subject's id, the range's bounds follow.
    struct Query {
        private(set) var parameters: [(any PostgresEncodable)?]
        private(set) var sql = ""

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
            let isVisits = switch subject {
            case .visitsToMerchant, .visitsBy: true
            default: false
            }
            let bindings = [EventType.terminalBound, .terminalUnbound].map { "'\($0.rawValue)'" }.joined(separator: ", ")
            sql = """
                WITH page AS (
                    SELECT * FROM (
                    \(parts.joined(separator: "\nUNION ALL\n"))
                    ) part ORDER BY at DESC, event_id DESC LIMIT \(limit)
                )
                SELECT p.position, (extract(epoch FROM p.at) * 1000000)::bigint, p.event_id, e.type, p.at,
                       f.lat, f.lon, \(StoredFields.metadataNumber(.gcj02Lat, of: "e.metadata")),
                       \(StoredFields.metadataNumber(.gcj02Lon, of: "e.metadata")),
                       f.horizontal_accuracy, f.accuracy, f.accuracy_authorization, coalesce(f.provider, fl.provider),
                       f.region, f.near_boundary, f.claim_mismatch, \(StoredFields.addressText(of: "e.data")), f.adcode,
                       \(StoredFields.metadata(.app, of: "e.metadata")), \(StoredFields.userId(of: "e.data")),
                       fl.error_code, fl.category, CASE WHEN fl.position IS NOT NULL THEN \(StoredFields.errorMessage(of: "e.data")) END,
                       coalesce(v.merchant_id, CASE WHEN e.type IN (\(bindings)) THEN e.data ->> 'merchantId' END),
                       coalesce(v.visit_id, CASE WHEN fl.entity_kind = 'visit' THEN fl.entity_id END), v.visitor_id,
                       \(isVisits ? "geo_distance_m(f.lat, f.lon, address.lat, address.lon)" : "NULL::float8")
                FROM page p
                JOIN events e ON e.position = p.position
                LEFT JOIN projections.fixes f ON p.source = 'fix' AND f.position = p.position
                LEFT JOIN projections.failures fl ON p.source = 'failure' AND fl.position = p.position
                LEFT JOIN projections.visits v ON p.source = 'fix' AND v.position = p.position
                \(isVisits ? "LEFT JOIN LATERAL (\(CurrentState.newestFix(kind: "'merchant'", id: "v.merchant_id", types: "'\(EventType.merchantAddressFixed.rawValue)'", preciseOnly: true))) address ON true" : "")
                ORDER BY p.at DESC, p.event_id DESC
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
