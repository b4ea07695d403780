import DatabaseTestSupport
import Foundation
import JSON
import LocationEvents
import Testing

/// The built `geoledger` binary, run as operators run it, against the test database.
@Suite("geoledger ingest and show", .serialized)
struct CommandLineTests {
    func geoledger(_ arguments: [String], _ db: IngestionDatabase) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(arguments, environment: ["DATABASE_URL": db.url])
    }

    func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID()).ndjson").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("ingest with bad items: exit 1, a summary line, and a rejects file naming each line and its error")
    func ingestWithRejects() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let lines = [
            Client.merchantAddressFixed(merchant: "M1"),
            "",
            Client.merchantAddressFixed(merchant: "M2", fix: Client.fix(lat: 91)),
            #"{"eventId": "not json"#,
            Client.terminalBound(terminal: "T1", merchant: "M1"),
            Client.terminalBound(terminal: "T1", merchant: "M2"),
        ]
        let input = try temporaryFile(lines.joined(separator: "\n") + "\n")
        let rejects = input + ".rejects"
        defer { try? FileManager.default.removeItem(atPath: input); try? FileManager.default.removeItem(atPath: rejects) }

        let outcome = try geoledger(["ingest", input, "--rejects", rejects, "--quiet"], db)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("appended 2, duplicate 0, conflict 1, invalid 2 (5 items"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("items not stored are in \(rejects)"))

        let rejected = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").map { try JSONValue(parsing: Data($0.utf8)) }
        #expect(rejected.map { $0["line"] } == [3, 4, 6])
        #expect(rejected.map { $0["status"] } == ["invalid", "invalid", "conflict"])
        #expect(rejected[0]["errors"]?.arrayValue?.first?["field"] == "fix.lat")
        #expect(rejected[0]["errors"]?.arrayValue?.first?["code"] == "out_of_range")
        #expect(rejected[0][path: "item.merchantId"] == "M2")
        #expect(rejected[1]["errors"]?.arrayValue?.first?["code"] == "invalid_json")
        #expect(rejected[1]["item"] == #"{"eventId": "not json"#)
        #expect(rejected[2][path: "error.code"] == "terminal_already_bound")
        #expect(try db.count("SELECT count(*) FROM events") == 2)
    }

    @Test("ingest where every item is stored, now or before: exit 0")
    func ingestAllStored() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        // No newline after the last line, as editors sometimes leave files.
        let input = try temporaryFile([
            Client.merchantAddressFixed(merchant: "M1"), Client.visitRecorded(visit: "V1", merchant: "M1"),
            Client.terminalBound(terminal: "T1", merchant: "M1"),
        ].joined(separator: "\r\n"))
        defer { try? FileManager.default.removeItem(atPath: input) }
        let first = try geoledger(["ingest", input, "--quiet"], db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("appended 3, duplicate 0, conflict 0, invalid 0"), "\(first.stdout)")
        let second = try geoledger(["ingest", input, "--quiet"], db)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasPrefix("appended 0, duplicate 3, conflict 0, invalid 0"), "\(second.stdout)")
    }

    @Test("show merchant --format json prints the address position, latest fix, bound terminals and visits")
    func showMerchantJSON() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let address = UUID(), latest = UUID(), terminalFix = UUID()
        try db.ingest([
            Client.merchantAddressFixed(address, merchant: "M0001"),
            Client.merchantAddressFixed(latest, merchant: "M0001", purpose: "shop", fix: Client.fix(
                horizontalAccuracy: 900, capturedAt: "2026-11-29T11:00:00+08:00")),
            Client.terminalBound(terminalFix, terminal: "T0001", merchant: "M0001", fix: Client.fix(capturedAt: "2026-11-29T10:05:00+08:00")),
            Client.visitRecorded(visit: "V1", merchant: "M0001"),
        ])
        let outcome = try geoledger(["show", "merchant", "M0001", "--format", "json"], db)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let shown = try JSONValue(parsing: Data(outcome.stdout.utf8))
        let shanghai = try #require(try storedPosition(address, db))
        expectMembers(shown, ["merchantId": "M0001", "visits": 1])
        expectMembers(try #require(shown["addressPosition"]), [
            "eventId": .string(address.uuidString.lowercased()), "accuracy": "precise", "horizontalAccuracy": 35,
            "provider": "amap", "region": "mainland", "capturedAt": "2026-11-29T02:00:00.000000Z", "position": 1,
        ])
        #expect(close(shown[path: "addressPosition.lat"]?.numberValue, shanghai.lat, within: 1e-12))
        #expect(close(shown[path: "addressPosition.lon"]?.numberValue, shanghai.lon, within: 1e-12))
        expectMembers(try #require(shown["latestFix"]), [
            "eventId": .string(latest.uuidString.lowercased()), "accuracy": "approximate", "horizontalAccuracy": 900,
            "capturedAt": "2026-11-29T03:00:00.000000Z", "position": 2,
        ])
        let terminals = try #require(shown["terminals"]?.arrayValue)
        #expect(terminals.count == 1)
        expectMembers(terminals[0], ["terminalId": "T0001", "boundSince": "2026-11-29T02:05:00.000000Z"])
        // The terminal's fix is the merchant's own point: no drift.
        #expect(close(terminals[0]["driftMetres"]?.numberValue, 0, within: 1e-6))
    }

    /// The WGS-84 position stored for the fix of event `id`.
    func storedPosition(_ id: UUID, _ db: IngestionDatabase) throws -> (lat: Double, lon: Double)? {
        guard let row = try db.connection.query("SELECT lat, lon FROM projections.fixes WHERE event_id = $1", [id]).first else { return nil }
        return (try row.decode(0), try row.decode(1))
    }

    @Test("ingest without a file is a usage error: exit 64 and a usage message")
    func ingestWithoutFile() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let outcome = try geoledger(["ingest"], db)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("geoledger ingest: say which file to read"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("geoledger ingest --help"))
    }

    @Test("show merchant of an unknown id: exit 1, saying so")
    func showUnknownMerchant() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let outcome = try geoledger(["show", "merchant", "NOPE"], db)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no merchant NOPE"), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }
}
