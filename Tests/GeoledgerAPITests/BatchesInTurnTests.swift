import EventStore
import Foundation
import HTTPTestSupport
import Ingestion
import Postgres
import RawHTTPClient
import Synchronization
import Testing

/// POST /v1/events decides each batch ahead of the append lock while the one before is written, and writes them in
/// turn; a decision that no longer holds is never written.
@Suite("Batches decided ahead and appended in turn")
struct BatchesInTurnTests {
    static func count(_ sql: String, on connection: Connection) throws -> Int {
        try connection.query(sql).first!.decode(0)
    }

    /// `geoledger_batches_total` by its `decided` label, from /metrics.
    static func batches(_ server: APITestServer) throws -> [String: Int] {
        let metrics = try server.call("GET", "/metrics")
        var counts: [String: Int] = [:]
        for line in metrics.text.split(separator: "\n") where line.hasPrefix("geoledger_batches_total{") {
            guard let label = line.firstMatch(of: /decided="([a-z_]+)"\} (\d+)/) else { continue }
            counts[String(label.1)] = Int(label.2)
        }
        return counts
    }

    @Test("after another writer appends, the next batch is decided under the lock and answered as if in turn; the ones after are decided ahead again")
    func anotherWriterInBetween() async throws {
        try await withAPI { server in
            let first = try server.post([Submissions.merchantFix("M1"), Submissions.merchantFix("M1")])
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.statuses == ["appended", "appended"])

            // Another writer (an ingest, say) appends M1's version 2 meanwhile.
            let other = UUID()
            let written = try server.pool.withConnection { connection in
                try IngestService(classifier: classifier).ingest(
                    [IngestItem.bytes(Data(Submissions.merchantFix("M1", id: other).utf8))], on: connection)
            }
            #expect(written.count(.appended) == 1)

            // Decided on what the server alone appended, the resend would be appended again and version 2 would
            // conflict.
            let second = try server.post([
                Submissions.merchantFix("M1", id: other), Submissions.merchantFix("M1", expectedVersion: 2),
            ])
            #expect(second.status == 200, "\(second.text)")
            #expect(try second.statuses == ["duplicate", "appended"])
            let results = try #require(try second.object["results"] as? [[String: Any]])
            #expect(results.map { $0["version"] as? Int } == [2, 3])

            let third = try server.post([Submissions.merchantFix("M1", expectedVersion: 3)])
            #expect(try third.statuses == ["appended"])
            #expect(try server.storedCount() == 5)
            #expect(try Self.batches(server) == ["ahead": 2, "under_lock": 1])
        }
    }

    @Test("four clients posting over the same streams at once: every batch decided ahead, each event stored once, versions gap-free, the chains verify")
    func fourClientsOverTheSameStreams() async throws {
        try await withAPI { server in
            let clients = 4, batches = 6, perBatch = 20
            let answers = try concurrently(clients) { client -> [String] in
                var statuses: [String] = []
                var previous: UUID?
                for _ in 0..<batches {
                    let ids = (0..<perBatch).map { _ in UUID() }
                    // Five streams every client writes to, and the first event of this client's batch before, sent again.
                    var lines = ids.enumerated().map { index, id in Submissions.merchantFix("S\(index % 5)", id: id) }
                    if let previous { lines.append(Submissions.merchantFix("S0", id: previous)) }
                    let response = try server.post(lines)
                    guard response.status == 200 else { throw RawClient.Failure(description: response.text) }
                    statuses += try response.statuses
                    previous = ids[0]
                }
                return statuses
            }
            let all = answers.flatMap { $0 }
            #expect(all.filter { $0 == "appended" }.count == clients * batches * perBatch)
            #expect(all.filter { $0 == "duplicate" }.count == clients * (batches - 1))
            #expect(all.count == clients * batches * perBatch + clients * (batches - 1))

            try server.pool.withConnection { connection in
                let rows = try connection.query("SELECT stream, count(*), max(version) FROM events GROUP BY stream")
                #expect(rows.count == 5)
                for row in rows {
                    let stream = try row.decode(0, as: String.self)
                    #expect(try row.decode(2, as: Int.self) == row.decode(1, as: Int.self) - 1, "\(stream) has a gap")
                }
                let report = try Verifier().verify(on: connection)
                #expect(report.firstBrokenLink == nil)
                #expect(report.eventsChecked == clients * batches * perBatch)
            }
            #expect(try Self.batches(server) == ["ahead": clients * batches, "under_lock": 0])
        }
    }

    /// Each batch is decided ahead at positions another writer's appends may take first. Neither may fail, hang or
    /// store anything twice.
    @Test("four clients post while another writer appends under the lock on its own: every answer 200, each event stored once with its fix")
    func fourClientsAndAnotherWriter() async throws {
        try await withAPI { server in
            let clients = 4, batches = 6, perBatch = 20, otherBatches = 30
            let other = try server.database!.connect()
            defer { other.close() }
            let service = IngestService(classifier: classifier)
            let posting = Mutex(clients)
            let otherAppended = Mutex(0)
            let otherFailure = Mutex<String?>(nil)
            let otherDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { otherDone.signal() }
                // Two events a batch, until the clients are done, and at least a few batches.
                var batch = 0
                while batch < otherBatches || posting.withLock({ $0 }) > 0 {
                    let items = (0..<2).map { _ in IngestItem.bytes(Data(Submissions.merchantFix("O\(batch % 3)").utf8)) }
                    let report: IngestReport
                    do {
                        report = try service.ingest(items, on: other)
                    } catch {
                        otherFailure.withLock { $0 = "\(error)" }
                        return
                    }
                    otherAppended.withLock { $0 += report.count(.appended) }
                    batch += 1
                }
            }
            let posted = Result { try concurrently(clients) { client -> [String] in
                defer { posting.withLock { $0 -= 1 } }
                var statuses: [String] = []
                for _ in 0..<batches {
                    let response = try server.post((0..<perBatch).map { index in Submissions.merchantFix("C\(client)-\(index % 4)") })
                    guard response.status == 200 else { throw RawClient.Failure(description: "\(response.status) \(response.text)") }
                    statuses += try response.statuses
                }
                return statuses
            } }
            // The other writer's connection is used until it stops.
            otherDone.wait()
            #expect(otherFailure.withLock { $0 } == nil)
            let answers = try posted.get()
            #expect(answers.flatMap { $0 }.allSatisfy { $0 == "appended" })
            let events = clients * batches * perBatch + otherAppended.withLock { $0 }
            #expect(otherAppended.withLock { $0 } >= otherBatches * 2)

            try server.pool.withConnection { (connection: Connection) throws in
                #expect(try Self.count("SELECT count(*) FROM events", on: connection) == events)
                #expect(try Self.count("SELECT count(DISTINCT event_id) FROM events", on: connection) == events)
                #expect(try Self.count("SELECT max(position) FROM events", on: connection) == events)
                // The projector behind the log, caught up: one fix row per event, at the event's position, whether it
                // was handed over by the server's appends or read from the log (the other writer's).
                try server.api.projector.catchUp(on: connection)
                #expect(try Self.count("SELECT count(*) FROM projections.fixes", on: connection) == events)
                #expect(try Self.count("SELECT count(*) FROM projections.fixes f JOIN events e USING (position, event_id)", on: connection) == events)
                #expect(try Verifier().verify(on: connection).firstBrokenLink == nil)
            }
            let decided = try Self.batches(server)
            #expect(decided.values.reduce(0, +) == clients * batches)
        }
    }

    @Test("batches that arrive while another is being decided are written together, each answered as if in turn")
    func batchesJoinedWhileAnotherIsDecided() async throws {
        try await withAPI { server in
            // The owner, who may lock the table.
            let locker = try server.database!.connect(as: server.database!.roles!.owner)
            defer { locker.close() }
            let ids = (0..<4).map { _ in (0..<3).map { _ in UUID() } }
            let responses = Mutex<[Int: Result<RawClient.Response, any Error>]>([:])
            let group = DispatchGroup()
            func post(_ batch: Int) {
                group.enter()
                Thread.detachNewThread {
                    let response = Result { try server.post(ids[batch].map { Submissions.merchantFix("M1", id: $0) }) }
                    responses.withLock { $0[batch] = response }
                    group.leave()
                }
            }
            // With the events table locked, the first batch's decision waits for its reads, and the three others
            // arrive meanwhile; then they are decided together.
            try locker.transaction { transaction in
                try transaction.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
                post(0)
                let deadline = ContinuousClock.now + .seconds(20)
                while try transaction.query(
                    """
                    SELECT count(*) FROM pg_locks
                    WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).first!.decode(0, as: Int.self) == 0, ContinuousClock.now < deadline {
                    usleep(20_000)
                }
                for batch in 1...3 { post(batch) }
                usleep(2_000_000)
            }
            group.wait()
            let answers = try (0..<4).map { batch in try responses.withLock { $0[batch]! }.get() }
            for answer in answers {
                #expect(answer.status == 200, "\(answer.text)")
                #expect(try answer.statuses == ["appended", "appended", "appended"])
            }
            // One transaction: the log's head after it, in each answer. The first batch was decided alone; of the
            // three others, those that had arrived by then (all, unless the machine is very slow) together.
            let heads = try answers.map { try $0.object["head"] as? String }
            #expect(!heads[1...].contains(heads[0]))
            #expect(Set(heads[1...]).count < 3, "no batch was joined to another: \(heads)")
            // As if in turn: each batch's positions and versions follow on from the batch's before it.
            let positions = try answers.map { answer in
                try #require(try answer.object["results"] as? [[String: Any]]).map { $0["position"] as? Int ?? -1 }
            }
            #expect(positions[0] == [1, 2, 3])
            #expect(positions.flatMap { $0 }.sorted() == Array(1...12))
            for batch in positions.dropFirst() { #expect(batch == Array(batch[0]...batch[0] + 2)) }
            #expect(try server.storedCount() == 12)
            #expect(try Self.batches(server) == ["ahead": 4, "under_lock": 0])
        }
    }
}
