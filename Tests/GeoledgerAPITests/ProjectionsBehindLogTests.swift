import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import Postgres
import RawHTTPClient
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `serve` keeps the projections behind the log: a read still sees every write acknowledged before it, a projector
/// that fails shows in `/metrics` and `/readyz` while appends go on, and reads fail clearly instead of answering stale.
@Suite("serve: the projections behind the log")
struct ProjectionsBehindLogTests {
    @Test("read your writes: 4 clients each post a fix of a new merchant and read it back at once, over HTTP and with geoledger show")
    func readYourWrites() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let server = try ServeProcess(url: url)
            let clients = 4, rounds = 15
            let missed = Mutex<[String]>([])
            let port = server.port
            _ = try concurrently(clients) { client in
                for round in 0..<rounds {
                    let merchant = "RW\(client)-\(round)"
                    let posted = try ServeProcess.post([Submissions.merchantFix(merchant)], token: token, port: port)
                    guard try posted.status == 200 && posted.statuses == ["appended"] else {
                        throw RawClient.Failure(description: "POST answered \(posted.status): \(posted.text)")
                    }
                    let read = try ServeProcess.get("/v1/merchants/\(merchant)", token: token, port: port)
                    if read.status != 200 || (try? read.object["merchantId"] as? String) != merchant {
                        missed.withLock { $0.append("GET \(merchant): \(read.status) \(read.text)") }
                    }
                    // The command line reads the same projections: it waits for serve's projector, or projects itself.
                    if round % 5 == 4 {
                        let shown = try GeoledgerProcess.run(
                            ["show", "merchant", merchant, "--format", "json"], environment: ["DATABASE_URL": url])
                        if shown.status != 0 || !shown.stdout.contains("\"merchantId\": \"\(merchant)\"") {
                            missed.withLock { $0.append("show \(merchant): \(shown.status) \(shown.stdout)\(shown.stderr)") }
                        }
                    }
                }
            }
            #expect(missed.withLock { $0 } == [])
            // The reads were served by the projector that runs in serve, from the events its appends handed over.
            let metrics = try ServeProcess.get("/metrics", token: token, port: server.port).text
            #expect(metrics.contains("geoledger_projector_position \(clients * rounds)\n"), "\(metrics)")
            #expect(Self.value("geoledger_projector_events_total{source=\"handed_over\"}", in: metrics) ?? 0 > 0, "\(metrics)")
            #expect(metrics.contains("geoledger_projector_lag_events 0\n"))
            #expect(metrics.contains("geoledger_projector_errors_total 0\n"))
        }
    }

    @Test("a projector that cannot write: appends go on within the bound, then 503 projections_behind; reads 503 projections_behind; /metrics and /readyz show it; all recovers once it can write")
    func failingProjector() async throws {
        try await onThread {
            try Self.withProjectorRefused { url, token, owner in
                let server = try ServeProcess(
                    url: url, environment: ["GEOLEDGER_MAX_PROJECTION_LAG": "5", "GEOLEDGER_READ_TIMEOUT": "1"])

                let first = try ServeProcess.post((0..<6).map { Submissions.merchantFix("F\($0)") }, token: token, port: server.port)
                #expect(try first.status == 200 && first.statuses == Array(repeating: "appended", count: 6), "\(first.text)")

                let read = try ServeProcess.get("/v1/merchants/F0", token: token, port: server.port)
                #expect(read.status == 503)
                #expect(read.errorCode == "projections_behind", "\(read.text)")
                #expect(read.headers["Retry-After"] == "1")
                #expect(read.text.contains("the projections are 6 events behind the log"), "\(read.text)")
                #expect(read.text.contains("refuse"), "\(read.text)")

                // Six behind, more than the five allowed: the next batch is refused whole, with nothing stored.
                let held = try ServeProcess.post([Submissions.merchantFix("F9")], token: token, port: server.port)
                #expect(held.status == 503)
                #expect(held.errorCode == "projections_behind", "\(held.text)")
                #expect(held.headers["Retry-After"] != nil)
                #expect(try ServeProcess.storedIDs(url: url).count == 6)

                let metrics = try ServeProcess.get("/metrics", token: token, port: server.port).text
                #expect(Self.value("geoledger_projector_errors_total", in: metrics) ?? 0 >= 1, "\(metrics)")
                #expect(metrics.contains("geoledger_projector_up 0\n"))
                #expect(metrics.contains("geoledger_projector_lag_events 6\n"))
                #expect(metrics.contains("geoledger_projector_max_lag_events 5\n"))
                #expect(metrics.contains("geoledger_projections_behind_total{request=\"read\"} 1\n"))
                #expect(metrics.contains("geoledger_projections_behind_total{request=\"append\"} 1\n"))
                let ready = try ServeProcess.get("/readyz", token: token, port: server.port)
                #expect(ready.status == 503)
                #expect(ready.errorCode == "projector_stuck", "\(ready.text)")

                // Able to write again, the projector catches up by itself: reads, appends and readiness come back.
                try owner.execute("ALTER TABLE projections.fixes DROP CONSTRAINT refuse")
                let deadline = Date().addingTimeInterval(30)
                var recovered = try ServeProcess.get("/readyz", token: token, port: server.port)
                while recovered.status != 200 && Date() < deadline {
                    usleep(100_000)
                    recovered = try ServeProcess.get("/readyz", token: token, port: server.port)
                }
                #expect(recovered.status == 200, "\(recovered.text)")
                #expect(try ServeProcess.get("/v1/merchants/F0", token: token, port: server.port).status == 200)
                let again = try ServeProcess.post([Submissions.merchantFix("F9")], token: token, port: server.port)
                #expect(try again.status == 200 && again.statuses == ["appended"], "\(again.text)")

                // The log says when the projector failed, with the error, and when it projected again.
                kill(server.pid, SIGTERM)
                #expect(try server.waitForExit(seconds: 30) == 0)
                let log = server.logEntries()
                let failed = log.filter { $0["level"] as? String == "warning" && $0["message"] as? String == "a batch of the projector failed; it is tried again" }
                #expect(!failed.isEmpty, "\(server.standardError)")
                #expect(failed.allSatisfy { ($0["error"] as? String)?.contains("refuse") == true && $0["checkpoint"] as? String == "0" })
                #expect(log.contains { $0["level"] as? String == "info" && $0["message"] as? String == "the projector projects again" })
            }
        }
    }

    @Test("a console page read while the projector cannot write: 503 \"The projections are behind\" with Retry-After, not a failed page")
    func consolePageBehind() async throws {
        let page = try await onThread {
            try Self.withProjectorRefused { url, token, _ in
                let server = try ServeProcess(url: url, environment: ["GEOLEDGER_READ_TIMEOUT": "1"])
                defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }

                let posted = try ServeProcess.post([Submissions.merchantFix("C0")], token: token, port: server.port)
                guard try posted.status == 200 && posted.statuses == ["appended"] else {
                    throw RawClient.Failure(description: "POST answered \(posted.status): \(posted.text)")
                }
                let (cookie, _) = try ConsoleTesting.signIn(token, port: server.port)
                let page = try ConsoleTesting.request("GET", "/merchants/C0", port: server.port, headers: ["Cookie": cookie])
                // Counted with the API's reads refused for it.
                let metrics = try ServeProcess.get("/metrics", token: token, port: server.port).text
                #expect(Self.value("geoledger_projections_behind_total{request=\"read\"}", in: metrics) == 1, "\(metrics)")
                return page
            }
        }
        #expect(page.status == 503, "\(page.text)")
        #expect(page.headers["Retry-After"] == "1")
        #expect(page.text.contains("<h1>The projections are behind</h1>"), "\(page.text)")
        #expect(page.text.contains("the projections are 1 event behind the log"), "\(page.text)")
    }

    /// Runs `body` on a fresh database with roles whose projector cannot write (a check no row of the fix history
    /// passes), with the application's URL, an admin token and the owner's connection, which can drop the check
    /// (`refuse`); the database is dropped after.
    static func withProjectorRefused<R>(_ body: (_ url: String, _ token: String, _ owner: Connection) throws -> R) throws -> R {
        let database = try TestDatabase.createWithRoles()
        defer { database.drop() }
        let url = database.url(as: database.roles!.application)
        let token = try ServeProcess.adminToken(url: url)
        let owner = try database.connect()
        defer { owner.close() }
        try owner.execute("ALTER TABLE projections.fixes ADD CONSTRAINT refuse CHECK (false) NOT VALID")
        return try body(url, token, owner)
    }

    /// The value of a metric line that starts with `name` and a space.
    static func value(_ name: String, in metrics: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }
}
