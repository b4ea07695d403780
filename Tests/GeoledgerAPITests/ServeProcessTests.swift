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

/// `geoledger serve` as a process of its own, stopped by a signal in the middle of its work.
@Suite("geoledger serve stopped by SIGTERM or SIGKILL under load")
struct ServeProcessTests {
    @Test("SIGTERM during a long batch: the batch is committed and answered 200, or nothing of it is stored (no answer, or 503 shutting_down); serve exits 0 and logs what it answered")
    func sigtermDuringBatch() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let server = try ServeProcess(url: url)

            // Under way when the signal comes; on a loaded machine it may outlast serve's 10 s of grace.
            let ids = (0..<5000).map { _ in UUID() }
            let body = Array(("[" + ids.enumerated().map { Submissions.merchantFix("M\($0.offset % 50)", id: $0.element) }
                .joined(separator: ",") + "]").utf8)
            let client = try RawClient(port: server.port, timeout: .seconds(60))
            try client.send(Array((
                "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body)
            // The body is sent: the server is reading, validating or appending it when the signal comes.
            usleep(150_000)
            kill(server.pid, SIGTERM)
            let answer = Result { try client.readResponse() }
            let status = try server.waitForExit(seconds: 30)
            #expect(status == 0, "serve's exit status")

            let stored = try ServeProcess.storedIDs(url: url)
            let log = server.logEntries()
            switch answer {
            case .success(let response) where response.status == 503:
                // Past the grace period: the answer says the server stopped first, so nothing may be stored.
                #expect(response.errorCode == "shutting_down", "\(response.text)")
                #expect(stored.isEmpty, "answered 503 shutting_down, yet \(stored.count) of the batch's events are stored")
            case .success(let response):
                #expect(response.status == 200, "\(response.text.prefix(500))")
                #expect(try response.statuses == Array(repeating: "appended", count: ids.count))
                #expect(stored == Set(ids.map { $0.uuidString.lowercased() }), "an answered batch is stored whole")
                #expect(log.contains { $0["route"] as? String == "/v1/events" && $0["status"] as? Int == 200 }, "\(log)")
            case .failure(let error):
                #expect(stored.isEmpty, "no answer (\(error)), yet \(stored.count) of the batch's events are stored")
                #expect(!log.contains { $0["route"] as? String == "/v1/events" && $0["status"] as? Int == 200 }, "\(log)")
            }
            #expect(server.standardError.contains("stopped"), "\(server.standardError)")
            let verified = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        }
    }

    @Test("SIGKILL while 4 clients post: every event of a batch answered 200 is stored; after a restart, resending every batch appends each missing event once and answers the rest duplicate; verify passes")
    func sigkillUnderLoad() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let first = try ServeProcess(url: url)
            let port = first.port, pid = first.pid

            // Each client posts batches of 100 until the server dies, noting each batch and whether it got a 200.
            let batches = try concurrently(4) { client throws -> [SentBatch] in
                var sent: [SentBatch] = []
                for batch in 0..<1000 {
                    let ids = (0..<100).map { _ in UUID() }
                    let lines = ids.enumerated().map { Submissions.merchantFix("C\(client)-\(batch)-\($0.offset % 10)", id: $0.element) }
                    let answer = Result { try ServeProcess.post(lines, token: token, port: port) }
                    if case .success(let response) = answer, response.status == 200 {
                        #expect(try response.statuses == Array(repeating: "appended", count: ids.count))
                        sent.append(SentBatch(lines: lines, ids: ids, acknowledged: true))
                    } else {
                        sent.append(SentBatch(lines: lines, ids: ids, acknowledged: false))
                        if case .failure = answer { break }  // the server is gone
                    }
                    if client == 0 && batch == 8 { kill(pid, SIGKILL) }
                }
                return sent
            }
            _ = try first.waitForExit(seconds: 10)
            let all = batches.flatMap { $0 }
            let acknowledged = all.filter(\.acknowledged)
            #expect(acknowledged.count >= 8, "batches answered 200 before the kill")
            let storedBefore = try ServeProcess.storedIDs(url: url)
            for batch in acknowledged {
                #expect(batch.ids.allSatisfy { storedBefore.contains($0.uuidString.lowercased()) }, "an acknowledged batch is missing events")
            }

            let second = try ServeProcess(url: url)
            var appended = 0
            for batch in all {
                let response = try ServeProcess.post(batch.lines, token: token, port: second.port)
                #expect(response.status == 200, "\(response.text.prefix(300))")
                let statuses = try response.statuses
                for (id, status) in zip(batch.ids, statuses) {
                    let wasStored = storedBefore.contains(id.uuidString.lowercased())
                    #expect(status == (wasStored ? "duplicate" : "appended"), "\(id): \(status)")
                    if status == "appended" { appended += 1 }
                }
            }
            kill(second.pid, SIGTERM)
            #expect(try second.waitForExit(seconds: 15) == 0)

            let storedAfter = try ServeProcess.storedIDs(url: url)
            #expect(storedAfter == Set(all.flatMap { $0.ids.map { $0.uuidString.lowercased() } }))
            #expect(storedAfter.count == storedBefore.count + appended)
            let connection = try Connection.connect(PostgresConfiguration(connectionString: url))
            defer { connection.close() }
            #expect(try connection.query("SELECT count(*) FROM events").first!.decode(0, as: Int.self) == storedAfter.count, "an event stored twice")
            let verified = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        }
    }
}

/// A batch a client posted: what it sent, and whether it was answered 200.
struct SentBatch: Sendable {
    let lines: [String]
    let ids: [UUID]
    let acknowledged: Bool
}

/// `geoledger serve --listen 127.0.0.1:0` on a database, its standard error collected.
final class ServeProcess {
    let port: Int
    let pid: Int32
    private let process: Process
    private let errors = LogLines()
    private let errorsRead = DispatchSemaphore(value: 0)

    /// The line it printed at start: `geoledger serve: listening on http://127.0.0.1:PORT (...)`.
    let listening: String

    /// - Parameters:
    ///   - arguments: added to `serve --listen 127.0.0.1:0 --threads 4`.
    ///   - environment: added to this process's.
    init(url: String, arguments: [String] = [], environment added: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--threads", "4"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = url
        environment.merge(added) { _, new in new }
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        pid = process.processIdentifier
        let errors = self.errors, errorsRead = self.errorsRead
        Thread.detachNewThread {
            let data = stderr.fileHandleForReading.readUntilEnd()
            errors.append(String(decoding: data, as: UTF8.self))
            errorsRead.signal()
        }
        let line = String(decoding: stdout.fileHandleForReading.readAvailable(), as: UTF8.self)
        guard let port = line.firstMatch(of: /127\.0\.0\.1:(\d+)/).map({ Int($0.1)! }) else {
            process.terminate()
            throw RawClient.Failure(description: "serve printed no address: \(line)")
        }
        self.port = port
        listening = line
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
    }

    /// The exit status, once it exited; throws when it runs on past `seconds`.
    func waitForExit(seconds: Double) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else { throw RawClient.Failure(description: "serve still runs after \(seconds) s") }
        return process.terminationStatus
    }

    /// What it wrote on standard error, once it exited.
    var standardError: String {
        errorsRead.wait()
        errorsRead.signal()
        return errors.all.joined()
    }

    /// Its request log: the JSON lines of standard error.
    func logEntries() -> [[String: Any]] {
        standardError.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Runs `body` on a thread of its own with a fresh database (migrated, with its roles): the application's URL
    /// and an admin token. The database is dropped after.
    static func onFreshDatabase(_ body: @escaping @Sendable (_ url: String, _ token: String) throws -> Void) async throws {
        try await onThread {
            let database = try TestDatabase.createWithRoles()
            defer { database.drop() }
            let url = database.url(as: database.roles!.application)
            try body(url, try adminToken(url: url))
        }
    }

    static func adminToken(url: String) throws -> String {
        let created = try GeoledgerProcess.run(["token", "create", "--name", "job", "--scopes", "admin"], environment: ["DATABASE_URL": url])
        guard created.status == 0 else { throw RawClient.Failure(description: created.stderr) }
        return created.stdout.trimmingCharacters(in: .newlines)
    }

    static func post(_ lines: [String], token: String, port: Int, timeout: Duration = .seconds(30)) throws -> RawClient.Response {
        let body = Array(("[" + lines.joined(separator: ",") + "]").utf8)
        let client = try RawClient(port: port, timeout: timeout)
        try client.send(Array((
            "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8) + body)
        return try client.readResponse()
    }

    /// `GET target` with the token, on a connection of its own.
    static func get(_ target: String, token: String, port: Int) throws -> RawClient.Response {
        let client = try RawClient(port: port, timeout: .seconds(30))
        try client.send(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n")
        return try client.readResponse()
    }

    /// The event ids in the log.
    static func storedIDs(url: String) throws -> Set<String> {
        let connection = try Connection.connect(PostgresConfiguration(connectionString: url))
        defer { connection.close() }
        return Set(try connection.query("SELECT event_id::text FROM events").map { try $0.decode(0, as: String.self) })
    }
}
