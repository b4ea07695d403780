import DatabaseTestSupport
import Foundation
import JSON
import LocationEvents
import Testing

/// The built `geoledger` run as a least-privilege deployment runs it: `migrate` and `replay` as the owner of the
/// tables, everything else as the application role that `migrate` granted.
@Suite("geoledger as the application role", .serialized)
struct ApplicationRoleCommandLineTests {
    @Test("after migrate as the owner, the application role ingests, shows and verifies; after replay as the owner it still does")
    func ingestShowVerifyReplay() throws {
        let database = try TestDatabase.createWithRoles(migrated: false)
        defer { database.drop() }
        let roles = try #require(database.roles)
        let ownerURL = database.url(as: roles.owner)
        // DATABASE_URL names the application role, and nothing else names the owner.
        let asApplication: [String: String?] = [
            "DATABASE_URL": database.url(as: roles.application), "GEOLEDGER_OWNER_URL": nil, "GEOLEDGER_APP_ROLE": nil,
        ]
        func geoledger(_ arguments: [String], environment: [String: String?] = [:]) throws -> GeoledgerProcess.Outcome {
            try GeoledgerProcess.run(arguments, environment: asApplication.merging(environment) { $1 })
        }
        func ingest(_ lines: [String]) throws -> GeoledgerProcess.Outcome {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("app-role-\(UUID()).ndjson").path
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try geoledger(["ingest", path, "--quiet"])
        }

        let refused = try geoledger(["migrate"])
        #expect(refused.status == 1, "the application role may not create tables")
        #expect(refused.stderr.contains("permission denied"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(roles.application) does not own the tables: give the owner's URL"), "\(refused.stderr)")

        let migrate = try geoledger(["migrate", "--owner-url", ownerURL])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("applied 0001_event_store.sql"))
        #expect(migrate.stdout.contains("granted \(roles.application) the application's privileges"), "\(migrate.stdout)")

        let first = try ingest([
            Client.merchantAddressFixed(merchant: "M1"), Client.visitRecorded(visit: "V1", merchant: "M1"),
            Client.terminalBound(terminal: "T1", merchant: "M1"),
            Client.locationFailed(entity: ("merchantId", "M1"), provider: "amap", errorCode: 4),
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("appended 4, duplicate 0, conflict 0, invalid 0"), "\(first.stdout)")
        let merchant = try geoledger(["show", "merchant", "M1", "--format", "json"])
        #expect(merchant.status == 0, "\(merchant.stderr)")
        let shown = try JSONValue(parsing: Data(merchant.stdout.utf8))
        #expect(shown["terminals"]?.arrayValue?.first?["terminalId"] == "T1")
        #expect(shown["visits"] == 1)
        let verified = try geoledger(["verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("ok: 4 events"), "\(verified.stdout)")

        let replayAsApplication = try geoledger(["replay", "--quiet"])
        #expect(replayAsApplication.status == 1, "the application role may not create schemas")
        #expect(replayAsApplication.stderr.contains("does not own the tables"), "\(replayAsApplication.stderr)")
        let replay = try geoledger(["replay", "--quiet"], environment: ["GEOLEDGER_OWNER_URL": ownerURL])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("replayed 4 events"), "\(replay.stdout)")

        // The replayed tables: an unbind updates T1's row, a new bind inserts T2's.
        let second = try ingest([
            Client.terminalUnbound(terminal: "T1", merchant: "M1"), Client.terminalBound(terminal: "T2", merchant: "M1"),
            Client.visitRecorded(visit: "V2", merchant: "M1"),
        ])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasPrefix("appended 3, duplicate 0, conflict 0, invalid 0"), "\(second.stdout)")
        let after = try JSONValue(parsing: Data(try geoledger(["show", "merchant", "M1", "--format", "json"]).stdout.utf8))
        #expect(after["terminals"]?.arrayValue?.map { $0["terminalId"] } == ["T2"])
        #expect(after["visits"] == 2)
        let unbound = try geoledger(["show", "terminal", "T1", "--format", "json"])
        #expect(unbound.status == 0, "\(unbound.stderr)")
        let terminal = try JSONValue(parsing: Data(unbound.stdout.utf8))
        #expect(terminal["merchantId"] == .null, "\(unbound.stdout)")
        #expect(terminal["unboundAt"]?.stringValue != nil, "\(unbound.stdout)")
        #expect(try geoledger(["verify"]).stdout.contains("ok: 7 events"))
    }
}
