import DatabaseTestSupport
import EventStore
import Foundation
@testable import Ingestion
import JSON
import Output
import Postgres
import Projections
import Queries
import Testing

/// The platform of a fix is computed once, by the projector, with the rule failures use (an explicit
/// `actor.platform` goes before `actor.os`), and stored on the fix's row and in the summaries; the reports read it.
@Suite("The platform of a fix", .serialized)
struct FixPlatformTests {
    /// Says iOS in its os, Android in its explicit platform: an Android device.
    static let explicit = #"{"app": "merchant", "os": "iOS 17", "platform": "android"}"#

    static func submission(_ n: Int, merchant: String, accuracy: Double, actor: String) -> String {
        Client.merchantAddressFixed(
            eventId(n), merchant: merchant,
            fix: Client.fix(horizontalAccuracy: accuracy, capturedAt: "2026-11-0\(n)T10:00:00+08:00")
        ).replacingOccurrences(of: Client.actor, with: actor)
    }

    static let submissions = [
        submission(1, merchant: "M1", accuracy: 30, actor: explicit),
        submission(2, merchant: "M2", accuracy: 10, actor: Client.actor),
        submission(3, merchant: "M3", accuracy: 50, actor: #"{"app": "merchant"}"#),
    ]

    static func platforms(_ connection: Connection) throws -> [String] {
        try connection.query("SELECT platform FROM projections.fixes ORDER BY entity_id").map { try $0.decode(0, as: String.self) }
    }

    /// The providers report's provider, platform, fixes and median.
    static func providers(_ connection: Connection) throws -> [[Value]] {
        try Reports.table(.providers, ReportFilters(), on: connection).rows.map { [$0[0], $0[1], $0[2], $0[5]] }
    }

    static let expectedProviders: [[Value]] = [
        [.text("amap"), .text("android"), .integer(1), .number(30)],
        [.text("amap"), .text("ios"), .integer(1), .number(10)],
        [.text("amap"), .text("unknown"), .integer(1), .number(50)],
    ]

    @Test("a fix with actor.platform android and actor.os iOS 17 is stored and reported under android, before and after replay")
    func explicitPlatformWins() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let report = try db.ingest(Self.submissions)
        #expect(report.count(.appended) == 3, "\(report.results)")
        #expect(try Self.platforms(db.connection) == ["android", "ios", "unknown"])
        #expect(try Self.providers(db.connection) == Self.expectedProviders)

        try Replayer(chunkSize: 1, workers: 2).replay(db.database.configuration)
        #expect(try Self.platforms(db.connection) == ["android", "ios", "unknown"])
        #expect(try Self.providers(db.connection) == Self.expectedProviders)
    }

    @Test("migrating gives the fixes projected before the column the platform their os gave; replay recomputes it from the log")
    func oldFixesGetTheirPlatform() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connection = try database.connect()
        defer { connection.close() }
        let migrations = try Migration.bundled()
        try Migrator(migrations: migrations.filter { $0.name < "0011" }).migrate(on: connection)
        // The events as ingest stores them; their fixes' rows as the projector wrote them before the column.
        let service = IngestService(classifier: try Boundaries.classifier())
        let batch = service.prepare(Self.submissions.map(IngestionDatabase.item), now: serverNow)
        _ = try EventLog().append(batch.events, on: connection)
        for (n, entity, accuracy, os) in [(1, "M1", 30.0, "'iOS 17'"), (2, "M2", 10, "'iOS 17.2'"), (3, "M3", 50, "NULL")] {
            try connection.execute("""
                INSERT INTO projections.fixes (position, event_id, event_type, entity_kind, entity_id, captured_at, lat, lon,
                    horizontal_accuracy, accuracy_authorization, accuracy, provider, region, near_boundary, claim_mismatch, app, os)
                VALUES (\(n), '\(eventId(n).uuidString.lowercased())', 'MerchantAddressFixed', 'merchant', '\(entity)',
                    '2026-11-0\(n)T02:00:00Z', 31.2304, 121.4737, \(accuracy), 'full', 'precise', 'amap', 'mainland', false, false,
                    'merchant', \(os))
                """)
        }

        try Migrator(migrations: migrations).migrate(on: connection)
        #expect(try Self.platforms(connection) == ["ios", "ios", "unknown"])
        #expect(try Self.providers(connection) == [
            [.text("amap"), .text("ios"), .integer(2), .number(20)],
            [.text("amap"), .text("unknown"), .integer(1), .number(50)],
        ])

        try Replayer().replay(database.configuration)
        #expect(try Self.platforms(connection) == ["android", "ios", "unknown"])
        #expect(try Self.providers(connection) == Self.expectedProviders)
    }
}
