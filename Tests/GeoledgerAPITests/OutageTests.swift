import EventStore
import Foundation
import GeoledgerAPI
import HTTPTestSupport
import LocalPostgres
import Postgres
import Synchronization
import Testing

/// A cluster of this suite's own, stopped and started under a running server.
@Suite("The database going away and coming back under a running server", .serialized)
struct OutageTests {
    /// The port after the test cluster's (DATABASE_URL's, which `make test TEST_PORT=N` sets): runs on other ports
    /// do not collide.
    static var port: Int {
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        let components = URLComponents(string: url)
        let given = components?.port ?? components?.queryItems?.first { $0.name == "port" }?.value.flatMap { Int($0) }
        return (given ?? 5432) + 1
    }

    @Test("while PostgreSQL is down /v1 answers 503 with Retry-After and /readyz fails; started again, 200s come back without a restart; every acknowledged event is stored")
    func outageAndRecovery() async throws {
        try await onThread {
            let folder = URL(fileURLWithPath: "/tmp/geoledger-outage-\(UUID().uuidString.prefix(8))")
            let cluster = LocalCluster(folder: folder, port: Self.port)
            defer {
                try? cluster.stop()
                try? FileManager.default.removeItem(at: folder)
            }
            try cluster.start(durable: false)
            let owner = try Connection.connect(cluster.configuration(as: .owner))
            try Migrator(migrations: try Migration.bundled()).migrate(on: owner)
            try ApplicationPrivileges.grant(to: LocalCluster.Role.app.name, on: owner)
            owner.close()

            let server = try APITestServer(application: cluster.configuration(as: .app))
            defer { server.stop() }
            #expect(try server.post([Submissions.merchantFix("M0")]).status == 200)

            // Two clients post batches all along, and note what each answer was.
            let running = Mutex(true)
            let outcomes = Mutex<[(status: Int, ids: [String])]>([])
            let clients = DispatchGroup()
            for client in 0..<2 {
                clients.enter()
                Thread.detachNewThread {
                    defer { clients.leave() }
                    var batch = 0
                    while running.withLock({ $0 }) {
                        batch += 1
                        let ids = (0..<5).map { _ in UUID() }
                        let lines = ids.map { Submissions.merchantFix("C\(client)-\(batch % 4)", id: $0) }
                        let status = (try? server.post(lines).status) ?? -1
                        outcomes.withLock { $0.append((status, ids.map { $0.uuidString.lowercased() })) }
                        usleep(20_000)
                    }
                }
            }
            usleep(300_000)
            try cluster.stop()

            let down = try server.post([Submissions.merchantFix("M1")])
            #expect(down.status == 503, "\(down.text)")
            #expect(down.errorCode == "database_unavailable")
            #expect(down.headers["Retry-After"] == "5")
            let feed = try server.call("GET", "/v1/events", token: "read")
            #expect(feed.status == 503)
            #expect(feed.headers["Retry-After"] != nil)
            #expect(try server.call("GET", "/readyz").status == 503)
            #expect(try server.call("GET", "/healthz").status == 200)
            usleep(300_000)

            try cluster.start(durable: false)
            let recovered = ContinuousClock.now + .seconds(30)
            var ready = false
            while !ready && ContinuousClock.now < recovered {
                ready = (try? server.call("GET", "/readyz").status) == 200
                    && (try? server.post([Submissions.merchantFix("M2")]).status) == 200
                if !ready { usleep(100_000) }
            }
            #expect(ready, "the server did not recover within 30 s of the database's start")
            usleep(300_000)
            running.withLock { $0 = false }
            clients.wait()

            let answers = outcomes.withLock { $0 }
            let statuses = Set(answers.map(\.status))
            #expect(statuses.isSubset(of: [200, 503]), "answers other than 200 and 503: \(statuses)")
            #expect(answers.contains { $0.status == 503 })
            #expect(answers.last?.status == 200)
            let stored = Set(try server.pool.withConnection { connection in
                try connection.query("SELECT event_id FROM events").map { try $0.decode(0, as: UUID.self).uuidString.lowercased() }
            })
            let acknowledged = answers.filter { $0.status == 200 }.flatMap(\.ids)
            #expect(Set(acknowledged).isSubset(of: stored), "an event answered 200 is missing")
            #expect(server.api.metrics.text(pool: server.pool, projector: server.api.projector.status).contains("geoledger_database_errors_total 0\n") == false)
        }
    }
}

@Suite("A connection lost while a batch commits")
struct CommitOutcomeTests {
    @Test("the 503 says the batch may or may not be stored, and a resend appends it once")
    func connectionLostDuringCommit() async throws {
        try await withAPI { server in
            let database = try #require(server.database)
            // At COMMIT, a deferred trigger ends the session that is committing, as a server going away would.
            let admin = try database.connect()
            defer { admin.close() }
            try admin.execute("""
                CREATE FUNCTION end_session() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$;
                CREATE CONSTRAINT TRIGGER end_session AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION end_session();
                """)
            let batch = [Submissions.merchantFix("M1")]
            let cut = try server.post(batch)
            #expect(cut.status == 503, "\(cut.text)")
            #expect(cut.errorCode == "database_unavailable")
            #expect(cut.headers["Retry-After"] == "5")
            #expect(cut.text.contains("may or may not be stored"), "\(cut.text)")

            try admin.execute("DROP TRIGGER end_session ON events")
            let again = try server.post(batch)
            #expect(again.status == 200, "\(again.text)")
            #expect(try again.statuses == ["appended"])
            #expect(try server.storedCount() == 1)
        }
    }
}
