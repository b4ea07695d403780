import DatabaseTestSupport
import Foundation
import Testing

/// The runbooks of docs/operations.md, run as written: only the role and database names are replaced by fresh ones,
/// so that they run beside other tests on the test server, and the variables they name are set.
@Suite("docs/operations.md's runbooks", .serialized)
struct OperationsRunbookTests {
    @Test("roles: the application can append and read, and cannot delete an event")
    func leastPrivilege() throws {
        let names = RunbookNames()
        defer { names.drop() }
        let roles = try names.run("roles")
        try #require(roles.status == 0, "\(roles.stderr)")
        let outcome = try names.run("least-privilege")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("appended 500"), "\(outcome.stdout)")
        #expect(outcome.stderr.contains("permission denied for table events"), "\(outcome.stderr)")
        #expect(outcome.stdout.contains("refused"), "\(outcome.stdout)")
        let count = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": names.url(as: names.application)])
        #expect(count.stdout.contains("ok: 500 events"), "\(count.stdout)")
    }

    @Test("backup and restore: the restored log holds the head kept before the backup; one kept after more appends it does not")
    func backupAndRestore() throws {
        let old = RunbookNames(), new = RunbookNames()
        defer { old.drop(); new.drop() }
        try old.populate()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-backup-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let backup = try old.run("backup", in: folder)
        try #require(backup.status == 0, "\(backup.stderr)")
        let head = try String(contentsOfFile: folder + "/head-before-backup.txt", encoding: .utf8)
        #expect(head.hasPrefix("head=500:"), "\(head)")
        #expect(FileManager.default.fileExists(atPath: folder + "/geoledger.dump"))

        // The old database goes on after the backup: a head kept now is one the backup does not hold.
        let examples = try String(contentsOf: Documentation.root.appendingPathComponent("examples/fixes.ndjson"), encoding: .utf8)
        let fresh = examples.split(separator: "\n").filter { $0.contains(#""type":"MerchantAddressFixed""#) }.prefix(3).map { line in
            line.replacing(/"eventId":"[0-9a-f-]+"/) { _ in #""eventId":"\#(UUID().uuidString.lowercased())""# }
        }
        let more = try GeoledgerProcess.run(
            ["ingest", "-"], environment: ["DATABASE_URL": old.url(as: old.application)], input: fresh.joined(separator: "\n") + "\n")
        #expect(more.stdout.contains("appended 3,") || more.stderr.contains("appended 3,"), "\(more.stdout)\(more.stderr)")

        let restore = try new.run("restore", [
            "NEW_OWNER_URL": new.url(as: new.owner), "NEW_DATABASE_URL": new.url(as: new.application),
        ], in: folder)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("ok: the log holds head \(head.dropFirst("head=".count).trimmingCharacters(in: .newlines))"), "\(restore.stdout)")
        let shown = try GeoledgerProcess.run(["show", "merchant", "M0000021"], environment: ["DATABASE_URL": new.url(as: new.application)])
        #expect(shown.status == 0 && shown.stdout.contains("visits           5"), "\(shown.stdout)\(shown.stderr)")

        let later = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": old.url(as: old.application)])
        let laterHead = try #require(later.stdout.split(separator: "\n").last.map(String.init))
        #expect(laterHead.hasPrefix("head=503:"), "\(later.stdout)")
        let refused = try GeoledgerProcess.run(
            ["verify", "--head", laterHead], environment: ["DATABASE_URL": new.url(as: new.application)])
        #expect(refused.status == 1, "a head the backup does not hold: \(refused.stdout)\(refused.stderr)")
    }

    @Test("upgrading: --version names the newest migration; migrate applies what is pending, then nothing is")
    func upgrade() throws {
        let names = RunbookNames()
        defer { names.drop() }
        let created = try Documentation.run(
            names.apply(to: #"psql "$SUPERUSER_URL" -v ON_ERROR_STOP=1 -c "CREATE ROLE geoledger_owner LOGIN" -c "CREATE ROLE geoledger_app LOGIN" -c "CREATE DATABASE geoledger OWNER geoledger_owner""#),
            environment: names.environment)
        try #require(created.status == 0, "\(created.stderr)")
        let outcome = try names.run("upgrade")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let newest = try FileManager.default.contentsOfDirectory(atPath: Documentation.root.appendingPathComponent("Migrations").path)
            .filter { $0.hasSuffix(".sql") }.sorted().last
        let version = try #require(outcome.stdout.split(separator: "\n").first.map(String.init))
        #expect(version.contains("(schema: \(newest ?? "?"))"), "\(version)")
        #expect(outcome.stdout.contains("pending"), "the first --status lists pending migrations: \(outcome.stdout)")
        #expect(outcome.stdout.contains("applied \(newest ?? "?")"), "\(outcome.stdout)")
        let status = try GeoledgerProcess.run(
            ["migrate", "--status", "--owner-url", names.url(as: names.owner)], environment: [:])
        #expect(!status.stdout.contains("pending"), "\(status.stdout)")
    }

    @Test("monitoring: /readyz answers, /metrics has the projector's lag, status as JSON, and each request is a JSON line")
    func monitoring() throws {
        let names = RunbookNames()
        defer { names.drop() }
        try names.populate()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-ops-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try RunScriptTests.freePort()
        let served = try RunningScript(environment: [
            "GEOLEDGER": GeoledgerProcess.binary, "GEOLEDGER_DATA_DIR": folder, "GEOLEDGER_LISTEN": "127.0.0.1:\(port)",
            "DATABASE_URL": names.url(as: names.application), "GEOLEDGER_OWNER_URL": names.url(as: names.owner),
        ])
        defer { _ = try? served.stop() }
        _ = try served.waitFor("listening on")
        let script = try Documentation.runbook("monitoring").text.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        let outcome = try Documentation.run(script, environment: names.environment)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("geoledger_projector_lag_events 0"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("geoledger_projector_up 1"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains(#""lagEvents":0"#), "\(outcome.stdout)")
        let log = try served.waitFor(#""route":"/readyz""#)
        let line = try #require(log.split(separator: "\n").first { $0.contains(#""route":"/readyz""#) })
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["status"] as? Int == 200, "\(line)")
    }
}
