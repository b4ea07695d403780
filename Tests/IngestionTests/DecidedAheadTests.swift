import DatabaseTestSupport
import EventStore
import Foundation
import Ingestion
import Postgres
import Testing

/// `geoledger ingest` decides each batch on a second connection while the one before it is written. The answers and
/// the stored rows must be those of deciding every batch under the append lock, and someone else appending meanwhile
/// must not cost an event or double one.
@Suite("Streamed ingest, batches decided ahead", .serialized)
struct DecidedAheadTests {
    /// A shuffled workload of fixes, binds, unbinds and visits, with what must be answered otherwise mixed in, cut into
    /// batches of 7 so that repeats and rule conflicts fall in the batch after, or the one after that.
    static func lines() -> [String] {
        var lines = OrderWorkload(withUnbinds: true).shuffled(seed: 31)
        let reused = eventId(900_001)
        let extra = [
            Client.terminalBound(reused, terminal: "TX", merchant: "MX"),
            Client.terminalBound(terminal: "TX", merchant: "MY"),  // terminal_already_bound
            Client.terminalUnbound(terminal: "TX", merchant: "MY"),  // terminal_not_bound
            Client.terminalBound(reused, terminal: "TX", merchant: "MX"),  // duplicate
            Client.terminalLocated(reused, terminal: "TX"),  // event_id_reused
            "{\"eventId\": 12}",  // invalid
            Client.terminalUnbound(terminal: "TX", merchant: "MX"),
            Client.terminalBound(terminal: "TX", merchant: "MY"),
        ]
        for (offset, line) in extra.enumerated() { lines.insert(line, at: min(lines.count, 5 + offset * 6)) }
        // Repeats of earlier lines, a batch or two later.
        for index in stride(from: 3, to: min(lines.count, 60), by: 9) { lines.insert(lines[index], at: index + 8) }
        return lines
    }

    struct Outcome {
        var totals: IngestTotals
        var rejected: [String]
        var batches: Int
    }

    /// Ingests the lines in batches of 7; `decidingAhead`, on a second connection of its own.
    static func ingest(
        _ lines: [String], into db: IngestionDatabase, decidingAhead: Bool, afterBatch: (Int) throws -> Void = { _ in }
    ) throws -> Outcome {
        let decider = decidingAhead ? try db.database.connect() : nil
        defer { decider?.close() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decided-\(UUID()).ndjson").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Unexpected("cannot open \(path)") }
        defer { close(descriptor) }
        var rejected: [String] = []
        var batches = 0
        let totals = try StreamIngestor(service: db.service, batchSize: 7).run(
            SubmissionReader(fileDescriptor: descriptor), on: db.connection, decidingOn: decider,
            rejected: { raw, result in
                rejected.append("\(result.status) \(result.conflict?.code ?? "") \(String(decoding: raw.bytes, as: UTF8.self))")
            },
            progress: { _, _ in
                batches += 1
                try afterBatch(batches)
            })
        try db.project()
        return Outcome(totals: totals, rejected: rejected, batches: batches)
    }

    /// The log without what depends on when the ingest ran: receivedAt, recordedAt, and so the hash.
    static func log(_ db: IngestionDatabase) throws -> String {
        try db.connection.query(
            """
            SELECT jsonb_agg(jsonb_build_object(
                       'position', position, 'eventId', event_id, 'stream', stream, 'version', version, 'type', type,
                       'data', data::jsonb, 'metadata', metadata::jsonb - 'receivedAt') ORDER BY position)::text
            FROM events
            """
        ).first!.decode(0)
    }

    @Test("the answers, the log and every projection are those of deciding each batch under the lock")
    func sameAsUnderTheLock() throws {
        let lines = Self.lines()
        let ahead = try IngestionDatabase()
        defer { ahead.drop() }
        let underLock = try IngestionDatabase()
        defer { underLock.drop() }

        let decided = try Self.ingest(lines, into: ahead, decidingAhead: true)
        let locked = try Self.ingest(lines, into: underLock, decidingAhead: false)
        // Each batch went the way it was meant to.
        #expect(decided.batches > 2 && decided.totals.batchesDecidedAhead == decided.batches)
        #expect(decided.totals.batchesDecidedUnderLock == 0)
        #expect(locked.totals.batchesDecidedAhead == 0 && locked.totals.batchesDecidedUnderLock == locked.batches)

        #expect(decided.totals.counts == locked.totals.counts)
        // The heads differ as the recording times do; each is the head its log ends with.
        #expect(decided.totals.head == (try Verifier().verify(on: ahead.connection).head))
        #expect(locked.totals.head == (try Verifier().verify(on: underLock.connection).head))
        // The mix the input was made for (the workload's own conflicts and invalid lines come on top).
        #expect(decided.totals.duplicate >= 5 && decided.totals.conflict >= 3 && decided.totals.invalid >= 1)
        #expect(decided.rejected == locked.rejected)
        #expect(try Self.log(ahead) == Self.log(underLock))
        #expect(try ahead.allProjections() == underLock.allProjections())
        #expect(try Verifier().verify(on: ahead.connection).firstBrokenLink == nil)
    }

    @Test("someone else appends during the ingest: the batches decided before are decided again under the lock, the later ones ahead again; nothing lost or doubled")
    func anotherWriter() throws {
        let lines = Self.lines()
        let db = try IngestionDatabase()
        defer { db.drop() }
        let other = try IngestionDatabase(sharing: db)
        defer { other.connection.close() }
        // A stream the ingest writes to as well, at the end of the first batch: a batch is decided by then.
        let foreign = Client.terminalLocated(eventId(900_002), terminal: "T4")

        var foreignStatus: IngestStatus?
        let outcome = try Self.ingest(lines, into: db, decidingAhead: true) { batch in
            if batch == 1 { foreignStatus = try other.ingest([foreign]).results[0].status }
        }
        #expect(foreignStatus == .appended)
        // The first batch was written as decided ahead. The next, decided on the log as the first left it, found the
        // other writer's event under the lock and was decided again there, as was any decided before that showed;
        // the planner started afresh, and the batches after were decided ahead again.
        #expect(outcome.batches > 4)
        #expect(outcome.totals.batchesDecidedUnderLock >= 1 && outcome.totals.batchesDecidedUnderLock <= 3)
        #expect(outcome.totals.batchesDecidedAhead == outcome.batches - outcome.totals.batchesDecidedUnderLock)
        let alone = try IngestionDatabase()
        defer { alone.drop() }
        let expected = try Self.ingest(lines, into: alone, decidingAhead: false)

        #expect(outcome.totals.counts == expected.totals.counts)
        #expect(try db.count("SELECT count(*) FROM events") == expected.totals.appended + 1)
        #expect(try db.count("SELECT count(*) FROM events WHERE event_id = '\(eventId(900_002))'") == 1)
        // Every stream gap-free from version 0, every chain intact.
        #expect(try db.count("SELECT count(*) FROM (SELECT stream FROM events GROUP BY stream HAVING max(version) + 1 <> count(*)) s") == 0)
        let verified = try Verifier().verify(on: db.connection)
        #expect(verified.firstBrokenLink == nil)
        #expect(outcome.totals.head == verified.head)
        #expect(verified.head.position == Int64(expected.totals.appended + 1))
        try db.expectReplayKeepsProjections()
    }

    @Test("a batch the database refuses stops the ingest with the database's error and the totals committed before it")
    func refusedBatch() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let other = try IngestionDatabase(sharing: db)
        defer { other.connection.close() }
        var storedBefore = 0
        let stopped = try #require(throws: IngestError.self) {
            _ = try Self.ingest(Self.lines(), into: db, decidingAhead: true) { batch in
                guard batch == 1 else { return }
                storedBefore = try other.count("SELECT count(*) FROM events")
                try other.connection.execute("ALTER TABLE events ADD CONSTRAINT refuse CHECK (false) NOT VALID")
            }
        }
        #expect(storedBefore > 0)
        // The first batch of 7, the second too when it was being written as the constraint came, and nothing of the
        // one refused.
        #expect(stopped.committed.items == 7 || stopped.committed.items == 14)
        let stored = try db.count("SELECT count(*) FROM events")
        #expect(stopped.committed.appended == stored)
        #expect(stored >= storedBefore)
        let cause = try #require(stopped.cause as? PostgresError)
        #expect(cause.isCheckViolation || (TestDatabase.onCitus && "\(cause)".contains("violates check constraint")), "\(cause)")
        #expect("\(stopped)".hasPrefix(
            "ingest stopped: \(cause); \(stopped.committed.items) items before it were committed (appended \(stored), "))
        #expect("\(stopped)".hasSuffix("; re-running the same input is safe"))
    }

    /// Two decided batches wait unwritten while the next is decided, as in the streamed ingest; with a capacity of
    /// one the planner forgets, after every batch, all the heads and bindings those two do not need.
    @Test("each item's answer, duplicates' positions included, is the one deciding under the lock gives", arguments: [500_000, 1])
    func perItemAnswers(capacity: Int) throws {
        let lines = Self.lines()
        let ahead = try IngestionDatabase()
        defer { ahead.drop() }
        let reader = try ahead.database.connect()
        defer { reader.close() }
        let underLock = try IngestionDatabase()
        defer { underLock.drop() }
        let planner = IngestPlanner(inFlight: 2, capacity: capacity)
        var unwritten: [DecidedBatch] = []
        var answersAhead: [IngestItemResult] = []
        var answersUnderLock: [IngestItemResult] = []
        func writeOldest() throws {
            let report = try #require(try ahead.service.write(unwritten.removeFirst(), on: ahead.connection), "written as decided")
            answersAhead += report.results
            #expect(report.head == (try ahead.service.head(on: ahead.connection)))
        }
        for start in stride(from: 0, to: lines.count, by: 7) {
            let items = lines[start..<min(start + 7, lines.count)].map(IngestionDatabase.item)
            unwritten.append(try planner.decide(ahead.service.prepare(items, now: serverNow), reading: reader))
            if unwritten.count > 2 { try writeOldest() }
            answersUnderLock += try underLock.service.append(
                underLock.service.prepare(items, now: serverNow), on: underLock.connection).results
        }
        while !unwritten.isEmpty { try writeOldest() }
        #expect(answersAhead.count == lines.count)
        #expect(answersAhead == answersUnderLock)
        #expect(answersAhead.contains { $0.status == .duplicate } && answersAhead.contains { $0.status == .conflict })
    }

    @Test("when deciding fails (its connection is gone), the ingest stops with the error and stores nothing")
    func decidingFails() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decided-\(UUID()).ndjson").path
        try Data((Self.lines().joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let decider = try db.database.connect()
        decider.close()
        let stopped = try #require(throws: IngestError.self) {
            _ = try StreamIngestor(service: db.service, batchSize: 7).run(
                SubmissionReader(fileDescriptor: descriptor), on: db.connection, decidingOn: decider)
        }
        #expect((stopped.cause as? PostgresError)?.kind == .connection)
        #expect(stopped.committed == IngestTotals())
        #expect("\(stopped)".contains("; nothing before it was committed; "))
        #expect(try db.count("SELECT count(*) FROM events") == 0)
    }
}

extension IngestTotals {
    /// The item counts alone, without the head (each event's hash covers its recording time, so two ingests of the
    /// same lines leave different heads) and without how the batches were decided.
    var counts: IngestTotals {
        var counts = self
        counts.head = nil
        counts.batchesDecidedAhead = 0
        counts.batchesDecidedUnderLock = 0
        return counts
    }
}
