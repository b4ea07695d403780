import DatabaseTestSupport
import EventStore
import Foundation
@testable import Ingestion
import Postgres
import Testing

/// The one orchestration of appends (`ingest` and `POST /v1/events`): batches written in the order given, a failure
/// answered for its own batch, a halt shared by batches that stop together, an atomic batch among decided ones.
@Suite("BatchAppender", .serialized)
struct BatchAppenderTests {
    struct Refused: Error {}

    /// An appender deciding on a second connection of its own; `body` runs with it, and it is closed (every batch
    /// given answered, both threads done) before the connections are.
    static func withAppender(
        _ db: IngestionDatabase, joinedEvents: Int, _ body: (BatchAppender) throws -> Void
    ) throws {
        let decider = try db.database.connect()
        defer { decider.close() }
        let appender = BatchAppender(
            service: db.service, deciding: .only(decider), writing: .only(db.connection), decidedAhead: 1,
            joinedEvents: joinedEvents, remembering: 100)
        defer { appender.close() }
        try body(appender)
    }

    static func batch(_ db: IngestionDatabase, _ lines: String...) -> PreparedBatch {
        db.service.prepare(lines.map(IngestionDatabase.item), now: serverNow)
    }

    /// Joined or each alone (0: never joined), the answers are the same: joined, the failed transaction is appended
    /// again batch by batch.
    @Test("a batch that fails stops those given after it with the same halt, answered Halted and not stored; a batch without it is written", arguments: [0, 1000])
    func halt(joinedEvents: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let halt = BatchAppender.Halt()
        try Self.withAppender(db, joinedEvents: joinedEvents) { appender in
            let first = appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M1")), halt: halt)
            let refused = appender.submit(
                Self.batch(db, Client.merchantAddressFixed(merchant: "M2")), halt: halt, beforeCommit: { throw Refused() })
            let after = appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M3")), halt: halt)
            let unrelated = appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M4")))

            let firstReport = try first.wait().report
            #expect(firstReport.count(.appended) == 1)
            #expect(throws: Refused.self) { try refused.wait() }
            #expect(throws: BatchAppender.Halted.self) { try after.wait() }
            let unrelatedReport = try unrelated.wait().report
            #expect(unrelatedReport.count(.appended) == 1)
        }
        #expect(halt.isSet)
        #expect(try db.count("SELECT count(*) FROM events") == 2)
        #expect(try db.count("SELECT count(*) FROM events WHERE stream IN ('merchant-M2', 'merchant-M3')") == 0)
        #expect(try Verifier().verify(on: db.connection).firstBrokenLink == nil)
    }

    /// The batch after the atomic one is decided while the atomic one waits, on a log without its event: that decision
    /// must not be written. (Unless the machine is so slow that it was decided only after the atomic batch was written:
    /// then afresh, on the log with it.)
    @Test("an atomic batch between decided ones is written alone under the lock, and the batches after it follow on from it")
    func atomicBetween() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        var versions: [[Int64?]] = []
        var decidedAhead: [Bool] = []
        try Self.withAppender(db, joinedEvents: 1000) { appender in
            let tickets = [
                appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M1"))),
                appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M1", expectedVersion: "0")), atomic: true),
                appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M1", expectedVersion: "1"))),
                appender.submit(Self.batch(db, Client.merchantAddressFixed(merchant: "M1", expectedVersion: "2"))),
            ]
            for ticket in tickets {
                let (report, ahead) = try ticket.wait()
                #expect(report.results.map(\.status) == [.appended], "\(report.results)")
                versions.append(report.results.map(\.version))
                decidedAhead.append(ahead)
            }
        }
        #expect(versions == [[0], [1], [2], [3]])
        #expect(decidedAhead[0] && !decidedAhead[1])
        #expect(try Verifier().verify(on: db.connection).firstBrokenLink == nil)
    }
}
