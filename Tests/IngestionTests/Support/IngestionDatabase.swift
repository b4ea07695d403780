import CivilCalendar
import DatabaseTestSupport
import EventStore
import Foundation
import Geo
import Ingestion
import JSON
import LocationEvents
import Postgres
import Projections
import Queries
import Testing

/// The bundled boundary data, loaded once for the whole test run.
enum Boundaries {
    private static let loaded = Result { try BoundaryClassifier.bundled() }

    static func classifier() throws -> BoundaryClassifier { try loaded.get() }
}

/// The server's receive time in these tests: fixed, so that runs in different orders store the same `receivedAt`.
let serverNow = instant("2026-11-29T12:00:00Z")

/// The instant an RFC 3339 text denotes.
func instant(_ text: String) -> Date {
    guard let timestamp = Timestamp(rfc3339: text) else { fatalError("not RFC 3339: \(text)") }
    return timestamp.date
}

/// A fresh migrated database (``TestDatabase``) with one connection in UTC and the ingest service.
struct IngestionDatabase {
    let database: TestDatabase
    let connection: Connection
    let service: IngestService

    init() throws {
        database = try TestDatabase.create()
        connection = try database.connect()
        try connection.execute("SET TIME ZONE 'UTC'")
        service = IngestService(
            classifier: try Boundaries.classifier(), projector: ProjectorRunner(configuration: database.configuration))
    }

    /// A fresh database migrated as far as the migrations before the one named `first` (its number will do), as an
    /// older release left it; ``migrate()`` applies the rest.
    init(migratedBefore first: String) throws {
        database = try TestDatabase.create(migrated: false)
        connection = try database.connect()
        try Migrator(migrations: try Migration.bundled().filter { $0.name < first }).migrate(on: connection)
        try connection.execute("SET TIME ZONE 'UTC'")
        service = IngestService(
            classifier: try Boundaries.classifier(), projector: ProjectorRunner(configuration: database.configuration))
    }

    /// Applies the migrations not applied yet.
    func migrate() throws {
        try Migrator(migrations: try Migration.bundled()).migrate(on: connection)
    }

    /// Another connection (and ingest service) to the database of `other`; dropping stays `other`'s job.
    init(sharing other: IngestionDatabase) throws {
        database = other.database
        connection = try database.connect()
        try connection.execute("SET TIME ZONE 'UTC'")
        service = other.service
    }

    func drop() {
        connection.close()
        database.drop()
    }

    /// Ingests JSON texts, each one item as a client sends it, and catches the projections up, as `ingest` ends.
    @discardableResult
    func ingest(_ texts: [String], atomic: Bool = false, now: Date = serverNow) throws -> IngestReport {
        let report = try service.ingest(texts.map(Self.item), atomic: atomic, now: now, on: connection)
        try project()
        return report
    }

    /// Projects what the log holds beyond the projections. On a database migrated as an older release left it,
    /// before the projector's checkpoint, the events are projected as those releases did, in the append's wake.
    func project() throws {
        guard try connection.query("SELECT to_regclass('projections.checkpoint') IS NULL").first!.decode(0, as: Bool.self) else {
            try service.projector!.catchUp(on: connection)
            return
        }
        let head = try EventLog().headPosition(on: connection)
        guard head > olderRelease.projected else { return }
        // Those releases kept no claim mismatch in latest_fixes (0020 added it): the column is there only while this
        // build's projector writes.
        let lacksColumn = try connection.query(
            "SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'projections' "
                + "AND table_name = 'latest_fixes' AND column_name = 'claim_mismatch')"
        ).first!.decode(0, as: Bool.self)
        if lacksColumn { try connection.execute("ALTER TABLE projections.latest_fixes ADD COLUMN claim_mismatch boolean") }
        try Projector.live.project((olderRelease.projected + 1)...head, on: connection)
        if lacksColumn { try connection.execute("ALTER TABLE projections.latest_fixes DROP COLUMN claim_mismatch") }
        olderRelease.projected = head
    }

    /// How far ``project()`` projected a database without the checkpoint.
    private let olderRelease = OlderRelease()

    private final class OlderRelease {
        var projected: Int64 = 0
    }

    /// Ingests in batches of `batchSize`.
    func ingest(_ texts: [String], batchSize: Int) throws {
        var rest = texts[...]
        while !rest.isEmpty {
            try ingest(Array(rest.prefix(batchSize)))
            rest = rest.dropFirst(batchSize)
        }
    }

    static func item(_ text: String) -> IngestItem {
        IngestItem.bytes(Data(text.utf8))
    }

    /// The rows of a projection table matching `condition`, each as a JSON object (`to_jsonb`): timestamps read
    /// as `2026-11-29T02:00:00+00:00`, numbers exactly as stored.
    func rows(_ table: String, where condition: String = "true", _ parameters: [(any PostgresEncodable)?] = []) throws -> [JSONValue] {
        try connection.query(
            "SELECT to_jsonb(t)::text FROM projections.\(table) t WHERE \(condition) ORDER BY to_jsonb(t)::text", parameters
        ).map { try JSONValue(parsing: Data(try $0.decode(0, as: String.self).utf8)) }
    }

    /// The only row of `table` matching `condition`; fails the test when there is not exactly one.
    func row(_ table: String, where condition: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> JSONValue {
        let found = try rows(table, where: condition, parameters)
        guard found.count == 1 else { throw Unexpected("\(found.count) rows in \(table) where \(condition)") }
        return found[0]
    }

    /// A whole table as one JSON array text, ordered by `orderBy`, without the columns in `excluding`.
    func contents(_ table: String, schema: String = "projections", excluding: [String] = [], orderBy: String) throws -> String {
        try connection.query(
            """
            SELECT coalesce(jsonb_agg(to_jsonb(t) - $1::text[] ORDER BY \(orderBy)), '[]')::text FROM \(schema).\(table) t
            """, [excluding]
        ).first!.decode(0)
    }

    /// Expects a replay of the log to give every projection table the contents the appends left in it.
    func expectReplayKeepsProjections(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let inline = try allProjections()
        _ = try Replayer().replay(database.configuration)
        #expect(try allProjections() == inline, sourceLocation: sourceLocation)
    }

    /// Every table of schema `projections`, full contents, by table name.
    func allProjections() throws -> [String: String] {
        let tables = try connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY tablename"
        ).map { try $0.decode(0, as: String.self) }
        var contents: [String: String] = [:]
        for table in tables {
            contents[table] = try self.contents(table, orderBy: "to_jsonb(t)::text")
        }
        return contents
    }

    /// The stored metadata of event `id`, parsed.
    func metadata(of id: UUID) throws -> JSONValue {
        guard let row = try connection.query("SELECT metadata::text FROM events WHERE event_id = $1", [id]).first else {
            throw Unexpected("no event \(id)")
        }
        return try JSONValue(parsing: Data(try row.decode(0, as: String.self).utf8))
    }

    /// What ``CurrentState`` answers for every merchant and every terminal the projections know, as canonical JSON
    /// by id (`merchant M1`, `terminal T1`); without the fixes' log positions when `withoutPositions`.
    func currentStates(withoutPositions: Bool = false) throws -> [String: String] {
        let ids = try connection.query(
            """
            SELECT 'merchant', entity_id FROM projections.fixes WHERE entity_kind = 'merchant'
            UNION SELECT 'merchant', merchant_id FROM projections.visits
            UNION SELECT 'merchant', last_merchant_id FROM projections.terminals
            UNION SELECT 'terminal', entity_id FROM projections.fixes WHERE entity_kind = 'terminal'
            UNION SELECT 'terminal', terminal_id FROM projections.terminals
            """
        ).map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)) }
        let encoder = JSONEncoder()
        var states: [String: String] = [:]
        for (kind, id) in ids {
            let encoded = kind == "merchant"
                ? try encoder.encode(try CurrentState().merchant(id, on: connection))
                : try encoder.encode(try CurrentState().terminal(id, on: connection))
            var state = try JSONValue(parsing: encoded)
            if withoutPositions { state = state.removingMembers(named: "position") }
            states["\(kind) \(id)"] = state.canonicalString()
        }
        return states
    }

    func count(_ sql: String) throws -> Int {
        try connection.query(sql).first!.decode(0)
    }

    /// A connection string naming this database, for the command-line tool.
    var url: String { database.url }
}

struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// The member at a dotted path, e.g. `fix.wgs84.lat`.
    subscript(path path: String) -> JSONValue? {
        path.split(separator: ".").reduce(Optional(self)) { value, key in value?[String(key)] }
    }

    var double: Double? { numberValue }

    /// This value with every object member called `name` removed, at any depth.
    func removingMembers(named name: String) -> JSONValue {
        switch self {
        case .object(let members):
            .object(JSONObject(members: members.filter { $0.key != name }.map { ($0.key, $0.value.removingMembers(named: name)) }))
        case .array(let elements):
            .array(elements.map { $0.removingMembers(named: name) })
        default:
            self
        }
    }
}

/// Whether two numbers agree to `tolerance`.
func close(_ a: Double?, _ b: Double, within tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// Literals for expected JSON in assertions.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

/// `fix` is present and shows the event `eventId` with these values; positions in space to `tolerance` degrees.
func expectFix(
    _ fix: FixSummary?, eventId: String, position: Int64? = nil, capturedAt: Date, lat: Double, lon: Double,
    accuracy: String, horizontalAccuracy: Double, provider: String, region: String, tolerance: Double = 1e-9,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let fix else {
        Issue.record("no fix where \(eventId) was expected", sourceLocation: sourceLocation)
        return
    }
    #expect(fix.eventId == eventId, sourceLocation: sourceLocation)
    if let position { #expect(fix.position == position, sourceLocation: sourceLocation) }
    #expect(fix.capturedAt == capturedAt, sourceLocation: sourceLocation)
    #expect(close(fix.lat, lat, within: tolerance) && close(fix.lon, lon, within: tolerance), "\(fix.lat), \(fix.lon)", sourceLocation: sourceLocation)
    #expect(fix.accuracy == accuracy, sourceLocation: sourceLocation)
    #expect(fix.horizontalAccuracy == horizontalAccuracy, sourceLocation: sourceLocation)
    #expect(fix.provider == provider, sourceLocation: sourceLocation)
    #expect(fix.region == region, sourceLocation: sourceLocation)
}
