import DatabaseTestSupport
import Foundation
import Testing

/// The log's head as `geoledger ingest` and `geoledger verify` print it, and `verify --head` checking one kept from
/// before, run as operators run them.
@Suite("geoledger verify --head and the heads ingest prints", .serialized)
struct LogHeadCommandTests {
    func geoledger(_ arguments: [String], _ db: IngestionDatabase) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(arguments, environment: ["DATABASE_URL": db.url])
    }

    /// The `head=POSITION:HASH` line of a command's output, without `head=`.
    func head(_ outcome: GeoledgerProcess.Outcome) throws -> String {
        let lines = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("head=") }
        guard lines.count == 1 else { throw Unexpected("not one head= line in: \(outcome.stdout) \(outcome.stderr)") }
        return String(lines[0].dropFirst("head=".count))
    }

    @Test("a superuser deletes the last 100 events behind the triggers: verify passes, verify --head with a head kept before fails")
    func tailCut() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let path = try BulkWorkload.ndjsonFile(count: 300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try geoledger(["ingest", path, "--quiet"], db).status == 0)
        let before = try geoledger(["verify"], db)
        #expect(before.status == 0)
        let kept = try head(before)
        #expect(kept.hasPrefix("300:"))

        try db.connection.execute("""
            ALTER TABLE events DISABLE TRIGGER USER;
            DELETE FROM events WHERE position > 200;
            ALTER TABLE events ENABLE TRIGGER USER;
            """)
        // Every chain that is left is intact: nothing inside the database shows the cut.
        let plain = try geoledger(["verify"], db)
        #expect(plain.status == 0, "\(plain.stdout)")
        #expect(try head(plain).hasPrefix("200:"))

        let checked = try geoledger(["verify", "--head", kept], db)
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stdout.contains("NOT HELD head \(kept): the log ends at position 200, before it"), "\(checked.stdout)")
    }
}
