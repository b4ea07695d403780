import DatabaseTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("geoledger serve and geoledger token")
struct ServeCommandTests {
    @Test("token create prints the token once; list shows names, scopes and times, never a token; revoke removes it")
    func tokens() throws {
        let database = try TestDatabase.createWithRoles()
        defer { database.drop() }
        let environment = ["DATABASE_URL": database.url(as: database.roles!.application)]
        let created = try GeoledgerProcess.run(["token", "create", "--name", "nightly", "--scopes", "ingest,read"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let token = created.stdout.trimmingCharacters(in: .newlines)
        #expect(token.range(of: "^glt_[0-9a-f]{16}_[0-9a-f]{64}$", options: .regularExpression) != nil, "\(token)")

        let listed = try GeoledgerProcess.run(["token", "list", "--format", "json"], environment: environment)
        #expect(listed.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["name"] as? String == "nightly")
        #expect(rows.first?["scopes"] as? String == "ingest,read")
        #expect(rows.first?["createdAt"] is String)
        #expect(rows.first?["lastUsedAt"] is NSNull)
        let table = try GeoledgerProcess.run(["token", "list"], environment: environment)
        #expect(table.stdout.contains("nightly") && table.stdout.contains("LAST USED"))
        for output in [listed.stdout, table.stdout] { #expect(!output.contains(String(token.suffix(64)))) }

        let again = try GeoledgerProcess.run(["token", "create", "--name", "nightly", "--scopes", "read"], environment: environment)
        #expect(again.status == 1)
        #expect(again.stderr.contains("a token named nightly exists"))
        let badScope = try GeoledgerProcess.run(["token", "create", "--name", "x", "--scopes", "write"], environment: environment)
        #expect(badScope.status == 64)
        #expect(badScope.stderr.contains("'write' is not a scope"))

        #expect(try GeoledgerProcess.run(["token", "revoke", "nightly"], environment: environment).status == 0)
        let gone = try GeoledgerProcess.run(["token", "revoke", "nightly"], environment: environment)
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("no token named nightly"))
    }

    @Test("serve takes its settings from GEOLEDGER_* (an option wins), answers with tokens, logs JSON lines, and exits 0 on SIGTERM")
    func serve() throws {
        let database = try TestDatabase.createWithRoles()
        defer { database.drop() }
        let url = database.url(as: database.roles!.application)
        let created = try GeoledgerProcess.run(["token", "create", "--name", "job", "--scopes", "admin"], environment: ["DATABASE_URL": url])
        let token = created.stdout.trimmingCharacters(in: .newlines)

        let server = try ServeProcess(
            arguments: ["--listen", "127.0.0.1:0"],
            environment: [
                "DATABASE_URL": url, "GEOLEDGER_LISTEN": "127.0.0.1:1",  // the option wins
                "GEOLEDGER_THREADS": "2", "GEOLEDGER_MAX_BODY": "4K",
            ])
        let port = server.port
        #expect(try http(port, "GET", "/healthz").status == 200)
        #expect(try http(port, "GET", "/v1/events").status == 401)
        let body = "[" + submission() + "]"
        let posted = try http(port, "POST", "/v1/events", token: token, body: body)
        #expect(posted.status == 200, "\(posted.text)")
        #expect(posted.text.contains(#""status":"appended""#))
        let large = try http(port, "POST", "/v1/events", token: token, body: "[" + String(repeating: " ", count: 5000) + "]")
        #expect(large.status == 413)
        let feed = try http(port, "GET", "/v1/events?after=0", token: token)
        #expect(feed.status == 200 && feed.text.contains(#""position":1"#))

        let (status, logLines) = server.terminate()
        #expect(status == 0)
        let entries = logLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(entries.count == logLines.count, "every stderr line is JSON: \(logLines)")
        #expect(entries.contains { $0["route"] as? String == "/v1/events" && $0["status"] as? Int == 200 && $0["token"] as? String == "job" })
        #expect(!logLines.contains { $0.contains(token) })
    }

    @Test("serve refuses a database that answers but is not migrated, and starts on one not there yet, answering 503")
    func database() throws {
        let empty = try TestDatabase.createEmpty()
        defer { empty.drop() }
        let refused = try GeoledgerProcess.run(["serve", "--listen", "127.0.0.1:0"], environment: ["DATABASE_URL": empty.url])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("run 'geoledger migrate' first"), "\(refused.stderr)")

        let server = try ServeProcess(
            arguments: ["--listen", "127.0.0.1:0"],
            environment: ["DATABASE_URL": "postgresql:///geoledger?host=/tmp/geoledger-nowhere-\(UUID().uuidString)&port=5432"])
        #expect(try http(server.port, "GET", "/healthz").status == 200)
        #expect(try http(server.port, "GET", "/readyz").status == 503)
        #expect(try http(server.port, "GET", "/v1/events", token: "glt_0000000000000000_" + String(repeating: "0", count: 64)).status == 503)
        let (status, logLines) = server.terminate()
        #expect(status == 0)
        #expect(logLines.contains { $0.contains("the database cannot be reached yet") })
    }

    @Test("serve hands pages freed and unused for 10 s back to the system; a decay in MALLOC_CONF decides instead")
    func allocatorDecay() throws {
        let nowhere = ["DATABASE_URL": "postgresql:///geoledger?host=/tmp/geoledger-nowhere-\(UUID().uuidString)&port=5432"]
        for (conf, decay) in [("stats_print:true", "10000"), ("stats_print:true,dirty_decay_ms:2000", "2000")] {
            let server = try ServeProcess(arguments: ["--listen", "127.0.0.1:0"], environment: nowhere.merging(["MALLOC_CONF": conf]) { $1 })
            let (status, lines) = server.terminate()
            #expect(status == 0)
            // jemalloc's statistics at exit: the option as started and the default for arenas made since, then each
            // arena, with the time after which it hands freed pages back (N/A: never).
            #expect(lines.contains { $0.contains("opt.dirty_decay_ms:") && $0.contains("(arenas.dirty_decay_ms: \(decay))") }, "\(conf)")
            var arenas: [String: Substring] = [:]
            var arena: String?
            for line in lines {
                if line.hasPrefix("arenas[") { arena = String(line) }
                if let name = arena, let time = line.firstMatch(of: /^\s+dirty:\s+(\S+)/) {
                    arenas[name] = time.1
                    arena = nil
                }
            }
            #expect(arenas.count > 1 && arenas.values.allSatisfy { $0 == decay }, "\(conf): \(arenas)")
        }
        // The other commands keep freed pages for reuse (CommandLineTests.allocatorOptions).
    }

    @Test("serve refuses bad settings with exit 64, naming the option or variable", arguments: [
        (["--listen", "localhost"], [String: String](), "--listen must be HOST:PORT"),
        (["--listen", "127.0.0.1:70000"], [:], "--listen must end in a port"),
        (["--threads", "0"], [:], "--threads must be a whole number from 1 to 1024"),
        ([], ["GEOLEDGER_THREADS": "many"], "GEOLEDGER_THREADS must be a whole number"),
        (["--max-body", "2G"], [:], "--max-body must be a size"),
        ([], ["GEOLEDGER_MAX_BODY": "lots"], "GEOLEDGER_MAX_BODY must be a size"),
        ([], ["GEOLEDGER_PUBLIC_METRICS": "yes"], "GEOLEDGER_PUBLIC_METRICS must be true or false"),
        (["--log-level", "loud"], [:], "--log-level must be debug, info, warning or error, not 'loud'"),
    ])
    func badSettings(arguments: [String], environment: [String: String], message: String) throws {
        let outcome = try GeoledgerProcess.run(["serve"] + arguments, environment: environment.mapValues { $0 })
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
    }

    /// `geoledger serve` running, with the port it printed; its standard error collected.
    private final class ServeProcess {
        let process = Process()
        let port: Int
        private let errors = Collected()
        private let errorsRead = DispatchSemaphore(value: 0)

        private final class Collected: Sendable {
            let data = Mutex(Data())
        }

        init(arguments: [String], environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
            process.arguments = ["serve"] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            let stdout = Pipe(), stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            process.standardInput = FileHandle.nullDevice
            try process.run()
            Thread.detachNewThread { [errors, errorsRead] in
                let data = stderr.fileHandleForReading.readUntilEnd()
                errors.data.withLock { $0 = data }
                errorsRead.signal()
            }
            let line = String(decoding: stdout.fileHandleForReading.readAvailable(), as: UTF8.self)
            guard let port = line.firstMatch(of: /127\.0\.0\.1:(\d+)/).map({ Int($0.1)! }) else {
                process.terminate()
                throw URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: "serve printed: \(line)"])
            }
            self.port = port
        }

        deinit {
            if process.isRunning { process.terminate() }
        }

        /// SIGTERM, then waits up to 15 s: the exit status (-1 if still running) and the lines of standard error.
        func terminate() -> (Int32, [Substring]) {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            guard !process.isRunning else { return (-1, []) }
            errorsRead.wait()
            return (process.terminationStatus, String(decoding: errors.data.withLock { $0 }, as: UTF8.self).split(separator: "\n"))
        }
    }

    private func submission() -> String {
        let capturedAt = Date().addingTimeInterval(-600).formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
        return """
            {"eventId":"\(UUID().uuidString)","type":"MerchantAddressFixed","merchantId":"M1","purpose":"onboarding",\
            "fix":{"lat":31.2304,"lon":121.4737,"datum":"gcj02","horizontalAccuracy":35,"accuracyAuthorization":"full",\
            "provider":"amap","capturedAt":"\(capturedAt)"},\
            "actor":{"userId":"s","app":"onboarding","appVersion":"5","deviceId":"A","os":"iOS 17.2"}}
            """
    }

    private struct Answer {
        let status: Int
        let text: String
    }

    /// A request through URLSession, waited for.
    private func http(_ port: Int, _ method: String, _ path: String, token: String? = nil, body: String? = nil) throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let outcome = Mutex<Result<Answer, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            let result: Result<Answer, any Error> = (response as? HTTPURLResponse).map {
                .success(Answer(status: $0.statusCode, text: String(decoding: data ?? Data(), as: UTF8.self)))
            } ?? .failure(error ?? URLError(.badServerResponse))
            outcome.withLock { $0 = result }
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 30) == .success else { throw URLError(.timedOut) }
        return try outcome.withLock { $0! }.get()
    }
}
