import DatabaseTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `geoledger ingest` stopped by an error says so, with what was committed before it; a server that stops answering
/// stops it at the statement timeout instead of holding it forever.
@Suite("An ingest that stops", .serialized)
struct IngestStopTests {
    static func lines(_ merchants: ClosedRange<Int>) -> [String] {
        merchants.map { Client.merchantAddressFixed(merchant: "M\($0)") }
    }

    @Test("a batch the database refuses: exit 1, the error, and the items committed before it")
    func refusedBatch() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let ingest = try RunningGeoledger(["ingest", "-", "--batch-size", "5", "--quiet"], environment: ["DATABASE_URL": db.url])
        ingest.write(Self.lines(1...5))
        #expect(try eventually(within: 30) { try db.count("SELECT count(*) FROM events") == 5 })
        try db.connection.execute("ALTER TABLE events ADD CONSTRAINT refuse CHECK (false) NOT VALID")
        ingest.write(Self.lines(6...12))
        ingest.closeInput()
        let outcome = ingest.waitForExit(limit: 60)

        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("ingest stopped: PostgreSQL copy error \(TestDatabase.onCitus ? "XX000" : "23514"): "), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(TestDatabase.onCitus ? "violates check constraint \"refuse_" : "\"refuse\""), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(
            "; 5 items before it were committed (appended 5, duplicate 0, conflict 0, invalid 0); re-running the same input is safe"),
            "\(outcome.stderr)")
        #expect(try db.count("SELECT count(*) FROM events") == 5)
    }

    @Test("the projections refuse a row: every item is appended all the same, and the ingest exits 1 saying the projections are behind")
    func refusedProjection() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.connection.execute("ALTER TABLE projections.fixes ADD CONSTRAINT refuse CHECK (false) NOT VALID")
        let outcome = try GeoledgerProcess.run(
            ["ingest", "-", "--batch-size", "5", "--quiet"], environment: ["DATABASE_URL": db.url],
            input: Self.lines(1...12).joined(separator: "\n") + "\n")

        #expect(outcome.status == 1)
        #expect(outcome.stdout.hasPrefix("appended 12, duplicate 0, conflict 0, invalid 0 (12 items in "), "\(outcome.stdout)")
        #expect(outcome.stderr.contains(
            "geoledger ingest: every item above was stored, but the projections could not be caught up: "), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("\"refuse"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("remove the cause, then run 'geoledger project'"), "\(outcome.stderr)")
        #expect(try db.count("SELECT count(*) FROM events") == 12)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 0)
        #expect(try db.count("SELECT position FROM projections.checkpoint") == 0)

        // A read fails clearly rather than answering without them.
        let show = try GeoledgerProcess.run(
            ["show", "merchant", "M1"], environment: ["DATABASE_URL": db.url, "GEOLEDGER_READ_TIMEOUT": "1"])
        #expect(show.status == 1)
        #expect(show.stderr.contains("the projections are 12 events behind the log and the projector fails: "), "\(show.stderr)")
        #expect(show.stderr.contains("\"refuse"), "\(show.stderr)")
        #expect(show.stdout.isEmpty)

        // The cause removed, the projections catch up, once.
        try db.connection.execute("ALTER TABLE projections.fixes DROP CONSTRAINT refuse")
        let project = try GeoledgerProcess.run(["project"], environment: ["DATABASE_URL": db.url])
        #expect(project.status == 0)
        #expect(project.stdout == "projected 12 events; the projections hold the log up to 12\n")
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 12)
        try db.expectReplayKeepsProjections()
    }

    @Test("the server stops answering: the ingest ends at GEOLEDGER_STATEMENT_TIMEOUT, saying so and what was committed")
    func frozenServer() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let ingest = try RunningGeoledger(
            ["ingest", "-", "--batch-size", "5", "--quiet"],
            environment: ["DATABASE_URL": db.url, "GEOLEDGER_STATEMENT_TIMEOUT": "2"])
        ingest.write(Self.lines(1...5))
        #expect(try eventually(within: 30) { try db.count("SELECT count(*) FROM events") == 5 })
        // The server processes of the ingest's two connections, stopped as a hung machine would leave them.
        let servers = try db.connection.query(
            """
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
              AND application_name NOT LIKE 'citus%'
            """
        ).map { try $0.decode(0, as: Int32.self) }
        // Two append, one projects.
        #expect(servers.count == 3)
        for pid in servers { kill(pid, SIGSTOP) }
        let resume = { for pid in servers { kill(pid, SIGCONT) } }
        defer { resume() }

        let started = Date()
        ingest.write(Self.lines(6...10))
        ingest.closeInput()
        let outcome = ingest.waitForExit(limit: 20, whenStuck: resume)
        let seconds = Date().timeIntervalSince(started)
        resume()

        #expect(seconds >= 2 && seconds < 10, "ended after \(seconds) s")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("ingest stopped: PostgreSQL timeout error: the server did not answer within 2 s"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("set GEOLEDGER_STATEMENT_TIMEOUT (seconds, 0 for no limit) to change the limit"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("; 5 items before it were committed (appended 5, "), "\(outcome.stderr)")
        #expect(try db.count("SELECT count(*) FROM events") == 5)
    }

    @Test("a GEOLEDGER_STATEMENT_TIMEOUT that is not whole seconds is refused, naming it", arguments: ["abc", "-1", "1.5"])
    func invalidTimeout(value: String) throws {
        let outcome = try GeoledgerProcess.run(
            ["ingest", "-", "--quiet"], environment: ["GEOLEDGER_STATEMENT_TIMEOUT": value], input: "")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("GEOLEDGER_STATEMENT_TIMEOUT must be whole seconds from 0 (no limit) to 2000000, not '\(value)'"),
                "\(outcome.stderr)")
    }

    @Test("ingest --help names the timeout setting and its default")
    func help() throws {
        let outcome = try GeoledgerProcess.run(["ingest", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("GEOLEDGER_STATEMENT_TIMEOUT   seconds to wait for the database's answer"))
        #expect(outcome.stdout.contains("(default 60, 0 for no limit)"))
    }
}
