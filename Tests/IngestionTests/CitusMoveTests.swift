import DatabaseTestSupport
import Foundation
import Postgres
import PostgresTestSupport
import Testing

/// docs/operations.md's move to Citus, run as written: from a database on PostgreSQL alone into a fresh one that
/// `migrate` sets up, the log's rows copied and the projections replayed, proved by the head kept before the move.
/// Under `make test-citus` the fresh database is on the Citus cluster and its log is distributed; under `make test`
/// the same runbook moves between two databases of one server.
@Suite("Moving to Citus, as operations.md says")
struct CitusMoveTests {
    @Test("the moved log holds the head kept before the move, the projections answer, and appends go on")
    func move() throws {
        // The old database: made with the roles runbook on the coordinator, whose template has no Citus extension.
        let old = RunbookNames()
        defer { old.drop() }
        try old.populate()

        let target = try TestDatabase.createWithRoles(migrated: false)
        defer { target.drop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-move-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = try Documentation.runbook("citus").text.replacingOccurrences(of: "geoledger_app", with: target.roles!.application)
        let application = target.url(as: target.roles!.application)
        let moved = try Documentation.run(
            script,
            environment: old.environment.merging([
                "CITUS_OWNER_URL": target.url(as: target.roles!.owner), "CITUS_DATABASE_URL": application,
            ]) { $1 },
            directory: folder)
        #expect(moved.status == 0, "\(moved.stderr)")
        let head = try String(contentsOfFile: folder + "/head-before-move.txt", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(head.hasPrefix("head=500:"), "\(head)")
        #expect(moved.stdout.contains("ok: the log holds head \(head.dropFirst("head=".count))"), "\(moved.stdout)")

        let shown = try GeoledgerProcess.run(["show", "merchant", "M0000021"], environment: ["DATABASE_URL": application])
        #expect(shown.status == 0 && shown.stdout.contains("visits           5"), "\(shown.stdout)\(shown.stderr)")
        let more = try GeoledgerProcess.run(["ingest", "-"], environment: ["DATABASE_URL": application], input: """
            {"eventId":"\(UUID().uuidString.lowercased())","type":"TerminalLocated","terminalId":"T-moved","fix":{"lat":31.2304,"lon":121.4737,"datum":"wgs84","horizontalAccuracy":20,"accuracyAuthorization":"full","provider":"apple","capturedAt":"2026-11-29T10:00:00+08:00"},"actor":{"app":"terminal-agent","os":"Android 13"}}

            """)
        #expect(more.status == 0, "\(more.stderr)")
        #expect(more.stdout.contains("head=501:"), "appends go on after the moved log: \(more.stdout)")

        if TestDatabase.onCitus {
            let connection = try target.connect()
            defer { connection.close() }
            let distributed = try connection.query("SELECT count(*) FROM citus_tables WHERE table_name = 'events'::regclass")
            #expect(try distributed.first?.decode(0, as: Int64.self) == 1, "the moved log is a Citus table")
        }
    }
}
