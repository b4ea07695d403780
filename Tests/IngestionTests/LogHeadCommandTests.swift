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

        // On Citus, citus.enable_unsafe_triggers lets the owner switch the log's triggers, on its shard too; PostgreSQL
        // alone keeps the setting and ignores it.
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER USER",
            "DELETE FROM events WHERE position > 200",
            "ALTER TABLE events ENABLE TRIGGER USER",
        ] {
            try db.connection.execute(statement)
        }
        // Every chain that is left is intact: nothing inside the database shows the cut.
        let plain = try geoledger(["verify"], db)
        #expect(plain.status == 0, "\(plain.stdout)")
        #expect(try head(plain).hasPrefix("200:"))

        let checked = try geoledger(["verify", "--head", kept], db)
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stdout.contains("NOT HELD head \(kept): the log ends at position 200, before it"), "\(checked.stdout)")
    }

    @Test("ingest prints the head it leaves, the one verify prints; a later verify --head of it passes")
    func ingestHeads() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let path = try BulkWorkload.ndjsonFile(count: 40)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let more = try BulkWorkload.ndjsonFile(count: 60)
        defer { try? FileManager.default.removeItem(atPath: more) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID()).ndjson").path
        try Data().write(to: URL(fileURLWithPath: empty))
        defer { try? FileManager.default.removeItem(atPath: empty) }

        let nothingYet = try geoledger(["ingest", empty, "--quiet"], db)
        #expect(try head(nothingYet) == "0:" + String(repeating: "0", count: 64))
        let first = try geoledger(["ingest", path, "--quiet"], db)
        #expect(first.status == 0, "\(first.stderr)")
        let kept = try head(first)
        #expect(kept.hasPrefix("40:"))
        #expect(try head(geoledger(["verify"], db)) == kept)
        // Nothing appended: the head the log has.
        #expect(try head(geoledger(["ingest", path, "--quiet"], db)) == kept)
        #expect(try head(geoledger(["ingest", empty, "--quiet"], db)) == kept)

        let second = try geoledger(["ingest", more, "--quiet"], db)
        let latest = try head(second)
        #expect(latest.hasPrefix("60:"), "the first 40 of the 60 are duplicates")
        for held in [kept, "head=" + kept, latest] {
            let outcome = try geoledger(["verify", "--head", held], db)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            #expect(outcome.stdout.contains("ok: the log holds head \(held.replacingOccurrences(of: "head=", with: ""))"))
            #expect(try head(outcome) == latest)
        }
    }

    @Test("the last events replaced by others: verify --head names the log hash found at the kept position")
    func tailReplaced() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let path = try BulkWorkload.ndjsonFile(count: 30)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let kept = try head(geoledger(["ingest", path, "--quiet"], db))
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER USER",
            "DELETE FROM events WHERE position > 29",
            "ALTER TABLE events ENABLE TRIGGER USER",
            "DELETE FROM projections.fixes WHERE position > 29",
        ] {
            try db.connection.execute(statement)
        }
        try db.ingest([Client.merchantAddressFixed(merchant: "M-other")])
        let now = try head(geoledger(["verify"], db))
        #expect(now.hasPrefix("30:") && now != kept)

        let outcome = try geoledger(["verify", "--head", kept], db)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("NOT HELD head \(kept): the log has \(now) there"), "\(outcome.stdout)")
    }

    @Test("verify --head in any other form is a usage error naming the form", arguments: [
        "30", "30:abc", "x:" + String(repeating: "0", count: 64), "30:" + String(repeating: "z", count: 64), "",
    ])
    func badHead(text: String) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let outcome = try geoledger(["verify", "--head", text], db)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--head must be POSITION:HASH"), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
    }
}
