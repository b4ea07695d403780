import DatabaseTestSupport
import Foundation
import Ingestion
import Postgres
import Projections
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The projector behind the log: each event projected exactly once, whoever projects and whatever is killed when.
@Suite("The projector behind the log", .serialized)
struct ProjectorTests {
    /// A log of `count` events whose projections are emptied and set back to position 0, as a log appended by a
    /// process killed before it projected anything would leave them (the bindings, kept by the append, stay).
    static func unprojectedLog(_ count: Int) throws -> IngestionDatabase {
        let db = try IngestionDatabase()
        try db.ingest((0..<count).map(BulkWorkload.submission), batchSize: 1000)
        try db.connection.execute("""
            TRUNCATE projections.fixes, projections.failures, projections.visits, projections.latest_fixes,
                projections.daily_events, projections.fix_days, projections.accuracy_buckets;
            UPDATE projections.checkpoint SET position = 0;
            """)
        return db
    }

    static func checkpoint(_ db: IngestionDatabase) throws -> Int {
        try db.count("SELECT position FROM projections.checkpoint")
    }

    @Test("geoledger project killed with SIGKILL at random points, again and again: each run goes on from the last batch, and the end equals a replay row for row")
    func killedProjector() throws {
        let db = try Self.unprojectedLog(3000)
        defer { db.drop() }
        var generator = SystemRandomNumberGenerator()
        var cutMidway = 0
        var checkpoints: [Int] = []
        for _ in 0..<6 {
            let before = try Self.checkpoint(db)
            if before == 3000 { break }
            let running = try RunningGeoledger(["project", "--batch-size", "40"], environment: ["DATABASE_URL": db.url])
            // Killed at a random point once this run has committed a batch, however slow the server (Citus) is to
            // get there: the kills land in the middle of the catch-up, not all before it.
            _ = try eventually(within: 30) { try Self.checkpoint(db) > before }
            usleep(UInt32.random(in: 0...60_000, using: &generator))
            kill(running.pid, SIGKILL)
            _ = running.waitForExit(limit: 30)
            let position = try Self.checkpoint(db)
            checkpoints.append(position)
            if position > 0 && position < 3000 { cutMidway += 1 }
            // Whatever was cut off, the rows hold exactly the events up to the checkpoint, each once.
            #expect(try db.count("SELECT count(*) FROM projections.fixes") == db.count(
                "SELECT count(*) FROM events WHERE position <= \(position) AND type <> 'LocationFailed' AND type <> 'TerminalUnbound'"))
            #expect(try db.count("SELECT count(*) - count(DISTINCT position) FROM projections.fixes") == 0)
        }
        // The kills landed in the middle of the catch-up, not only before or after it.
        #expect(cutMidway >= 1, "checkpoints after each kill: \(checkpoints)")
        #expect(checkpoints == checkpoints.sorted(), "a checkpoint went back: \(checkpoints)")
        let finished = try GeoledgerProcess.run(["project"], environment: ["DATABASE_URL": db.url])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try Self.checkpoint(db) == 3000)
        try db.expectReplayKeepsProjections()
    }

    @Test("two projectors at once on two connections: one writes at a time, the other waits for its checkpoint or takes the next batch; nothing is applied twice")
    func twoProjectors() throws {
        let db = try Self.unprojectedLog(3000)
        defer { db.drop() }
        let settings = ProjectorRunner.Settings(batchSize: 50)
        let runners = [ProjectorRunner(configuration: db.database.configuration, settings: settings),
                       ProjectorRunner(configuration: db.database.configuration, settings: settings)]
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let database = db.database
        for runner in runners {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let connection = try database.connect()
                    defer { connection.close() }
                    try runner.catchUp(on: connection)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        let batches = runners.map(\.status.batches)
        // Every batch written once, by one or the other: 3000 events in batches of 50.
        #expect(batches.reduce(0, +) == 60, "\(batches)")
        // They met: one found the other holding the lock at least once.
        #expect(runners.map(\.status.waits).reduce(0, +) > 0, "\(runners.map(\.status))")
        #expect(runners.map(\.status.position) == [3000, 3000])
        #expect(try Self.checkpoint(db) == 3000)
        try db.expectReplayKeepsProjections()
    }

    @Test("an ingest whose projector cannot write appends up to the lag bound, then stops saying so; what it appended stays")
    func ingestHeldBack() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.connection.execute("ALTER TABLE projections.fixes ADD CONSTRAINT refuse CHECK (false) NOT VALID")
        let projector = ProjectorRunner(
            configuration: db.database.configuration, settings: .init(maximumLag: 50, appendPatience: 1))
        let service = IngestService(classifier: try Boundaries.classifier(), projector: projector)
        let path = try BulkWorkload.ndjsonFile(count: 500)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let stopped = try #require(throws: IngestError.self) {
            _ = try StreamIngestor(service: service, batchSize: 20).run(SubmissionReader(fileDescriptor: descriptor), on: db.connection)
        }
        let cause = try #require(stopped.cause as? ProjectionError)
        guard case .behind(let behind) = cause else {
            Issue.record("stopped by \(cause), not the projections behind")
            return
        }
        #expect(behind.kind == .append)
        #expect("\(behind)".contains("more than the 50 allowed"), "\(behind)")
        #expect("\(behind)".contains("the projector is failing: "), "\(behind)")
        // Held back past the bound, before the whole file: a batch or two beyond it, all committed and in the log.
        let stored = try db.count("SELECT count(*) FROM events")
        #expect(stored > 50 && stored < 500, "\(stored)")
        #expect(stopped.committed.appended == stored)
        #expect(try Self.checkpoint(db) == 0)
    }

    @Test("a replay while a projector runs in the background and another writer appends: the swapped-in projections and the projector's go on from the rebuilt checkpoint, and end equal to a replay")
    func replayWhileProjecting() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest((0..<2000).map(BulkWorkload.submission), batchSize: 500)
        let runner = ProjectorRunner(
            configuration: db.database.configuration, settings: .init(batchSize: 25, pollInterval: 0.01))
        runner.start()
        defer { runner.stop() }
        let writer = try IngestionDatabase(sharing: db)
        defer { writer.connection.close() }
        let service = writer.service.handingOver(to: runner)
        let appending = DispatchSemaphore(value: 0)
        let appendFailure = Mutex<String?>(nil)
        let connection = writer.connection
        Thread.detachNewThread {
            defer { appending.signal() }
            do {
                for start in stride(from: 2000, to: 3000, by: 20) {
                    _ = try service.ingest(
                        (start..<start + 20).map { IngestionDatabase.item(BulkWorkload.submission($0)) }, now: serverNow,
                        on: connection)
                }
            } catch {
                appendFailure.withLock { $0 = "\(error)" }
            }
        }
        try Replayer(chunkSize: 100, workers: 2).replay(db.database.configuration)
        appending.wait()
        #expect(appendFailure.withLock { $0 } == nil)
        #expect(try eventually(within: 30) { try Self.checkpoint(db) == 3000 })
        // The projector wrote before and after the swap; nothing it wrote into the replaced tables is left or missing.
        #expect(runner.status.batches > 0)
        #expect(try db.count("SELECT count(*) - count(DISTINCT position) FROM projections.fixes") == 0)
        try db.expectReplayKeepsProjections()
    }

    @Test("a projector running in the background follows another process's appends, which it reads from the log")
    func followsOtherAppends() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let runner = ProjectorRunner(configuration: db.database.configuration, settings: .init(pollInterval: 0.05))
        runner.start()
        defer { runner.stop() }
        // Appended by another service, which hands nothing over.
        let other = try IngestionDatabase(sharing: db)
        defer { other.connection.close() }
        _ = try IngestService(classifier: try Boundaries.classifier()).ingest(
            (0..<25).map { IngestionDatabase.item(BulkWorkload.submission($0)) }, now: serverNow, on: other.connection)
        #expect(try eventually(within: 20) { runner.status.position == 25 })
        #expect(runner.status.eventsProjected == 25 && runner.status.eventsHandedOver == 0)
        #expect(try Self.checkpoint(db) == 25)
    }
}

/// `geoledger status` and `geoledger project` as an operator runs them.
@Suite("geoledger status and project")
struct ProjectorCommandTests {
    @Test("status: the log's head, the position projected and the lag, for people and as JSON; project catches up")
    func statusAndProject() throws {
        let db = try ProjectorTests.unprojectedLog(30)
        defer { db.drop() }
        let environment = ["DATABASE_URL": db.url]
        let behind = try GeoledgerProcess.run(["status"], environment: environment)
        #expect(behind.status == 0, "\(behind.stderr)")
        let lines = behind.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0] == "log head        30" && lines[1] == "projected up to 0", "\(behind.stdout)")
        #expect(lines.last?.hasPrefix("behind          30 events (the oldest recorded ") == true, "\(behind.stdout)")

        let project = try GeoledgerProcess.run(["project", "--batch-size", "7"], environment: environment)
        #expect(project.status == 0, "\(project.stderr)")
        #expect(project.stdout == "projected 30 events; the projections hold the log up to 30\n")
        #expect(try db.count("SELECT position FROM projections.checkpoint") == 30)

        let caughtUp = try GeoledgerProcess.run(["status", "--format", "json"], environment: environment)
        #expect(caughtUp.stdout == #"{"head":30,"projected":30,"lagEvents":0,"lagSeconds":0.000}"# + "\n", "\(caughtUp.stdout)")
        let again = try GeoledgerProcess.run(["project"], environment: environment)
        #expect(again.stdout == "projected 0 events; the projections hold the log up to 30\n")
    }

    @Test("project --batch-size outside 1...100000 is a usage error naming the option", arguments: ["0", "100001", "ten"])
    func badBatchSize(size: String) throws {
        let outcome = try GeoledgerProcess.run(["project", "--batch-size", size])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--batch-size must be a whole number from 1 to 100000, not '\(size)'"), "\(outcome.stderr)")
    }
}
