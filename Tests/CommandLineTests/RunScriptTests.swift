import DatabaseTestSupport
import Foundation
import LocalPostgres
import Synchronization
import Testing

/// scripts/run.sh, which `make run` and the Docker image run, and the connection retry it relies on in Docker.
@Suite("make run's script and GEOLEDGER_CONNECT_RETRY")
struct RunScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/run.sh").path

    @Test("run.sh migrates, makes an admin token on the first run only (printed once, kept mode 600), serves, and its curl line gets the feed")
    func firstAndSecondRun() throws {
        let database = try TestDatabase.createWithRoles(migrated: false)
        defer { database.drop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-run-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try Self.freePort()
        let environment = [
            "GEOLEDGER": GeoledgerProcess.binary, "GEOLEDGER_DATA_DIR": folder, "GEOLEDGER_LISTEN": "127.0.0.1:\(port)",
            "DATABASE_URL": database.url(as: database.roles!.application),
            "GEOLEDGER_OWNER_URL": database.url(as: database.roles!.owner),
        ]
        let tokenFile = folder + "/admin-token"

        let first = try RunningScript(environment: environment)
        let printed = try first.waitFor("listening on")
        let token = try #require(printed.firstMatch(of: /Admin token \(shown once; kept in .*admin-token, mode 600\): (glt_\S+)/)?.1, "\(printed)")
        #expect(try String(contentsOfFile: tokenFile, encoding: .utf8) == token + "\n")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
        let feed = try curl(printed)
        #expect(feed.hasSuffix("200"), "\(feed)")
        #expect(feed.contains(#""events":[]"#), "\(feed)")
        #expect(try first.stop() == 0)

        let second = try RunningScript(environment: environment)
        let again = try second.waitFor("listening on")
        #expect(!again.contains("Admin token"), "\(again)")
        #expect(try String(contentsOfFile: tokenFile, encoding: .utf8) == token + "\n")
        #expect(try curl(again).hasSuffix("200"))
        #expect(try second.stop() == 0)
        let tokens = try GeoledgerProcess.run(["token", "list", "--format", "csv"], environment: ["DATABASE_URL": environment["DATABASE_URL"]])
        #expect(tokens.stdout.split(separator: "\n").count == 2, "a header and the admin token: \(tokens.stdout)")
    }

    @Test("GEOLEDGER_CONNECT_RETRY: a command waits for a database that starts after it, saying so on stderr")
    func retriesUntilTheDatabaseStarts() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let cluster = LocalCluster(folder: URL(fileURLWithPath: "/tmp/geoledger-retry-\(UUID().uuidString.prefix(8))"), port: 5432)
                    defer {
                        try? cluster.stop()
                        try? FileManager.default.removeItem(at: cluster.folder)
                    }
                    let outcome = Mutex<GeoledgerProcess.Outcome?>(nil)
                    let done = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        let result = try? GeoledgerProcess.run(
                            ["migrate"], environment: ["DATABASE_URL": cluster.url(as: .owner), "GEOLEDGER_CONNECT_RETRY": "120"])
                        outcome.withLock { $0 = result }
                        done.signal()
                    }
                    usleep(2_500_000)
                    try cluster.start(durable: false)
                    #expect(done.wait(timeout: .now() + 120) == .success)
                    let migrated = try #require(outcome.withLock { $0 })
                    #expect(migrated.status == 0, "\(migrated.stderr)")
                    #expect(migrated.stderr.contains("geoledger: cannot connect to"), "\(migrated.stderr)")
                    #expect(migrated.stderr.contains("yet"), "\(migrated.stderr)")
                    #expect(migrated.stderr.contains("trying again in 2 s (GEOLEDGER_CONNECT_RETRY:"), "\(migrated.stderr)")
                })
            }
        }
    }

    @Test("GEOLEDGER_CONNECT_RETRY gives up when its time is over, with the usual message; a bad value is refused")
    func givesUp() throws {
        let unreachable = "postgresql://nobody@127.0.0.1:1/none"
        let started = Date()
        let outcome = try GeoledgerProcess.run(["token", "list"], environment: ["DATABASE_URL": unreachable, "GEOLEDGER_CONNECT_RETRY": "3"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(outcome.status == 1)
        #expect(elapsed >= 3 && elapsed < 30, "\(elapsed) s")
        #expect(outcome.stderr.contains("trying again in 2 s"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("Set DATABASE_URL"), "\(outcome.stderr)")

        let bad = try GeoledgerProcess.run(["token", "list"], environment: ["DATABASE_URL": unreachable, "GEOLEDGER_CONNECT_RETRY": "soon"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("GEOLEDGER_CONNECT_RETRY must be whole seconds from 0 to 3600, not 'soon'"), "\(bad.stderr)")
    }

    /// Runs the `curl` line run.sh printed, adding the status code after the body.
    private func curl(_ printed: String) throws -> String {
        let line = try #require(printed.split(separator: "\n").first { $0.hasPrefix("  curl ") }, "no curl line in \(printed)")
        let outcome = try GeoledgerProcess.run(["-c", line + " -sS -w '%{http_code}'"], executable: "/bin/sh")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return outcome.stdout
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        #expect(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// scripts/run.sh running, its output collected as it comes.
final class RunningScript {
    let process = Process()
    private let output = Printed()

    init(environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [RunScriptTests.script]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = self.output
        Thread.detachNewThread {
            while true {
                let data = pipe.fileHandleForReading.readAvailable()
                if data.isEmpty { return }
                output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Everything printed so far, once it contains `text`.
    func waitFor(_ text: String, seconds: Double = 60) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let printed = output.text.withLock { $0 }
            if printed.contains(text) { return printed }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        Issue.record("run.sh did not print '\(text)': \(output.text.withLock { $0 })")
        throw CancellationError()
    }

    /// SIGTERM, as Ctrl-C or `docker stop` sends; the exit status.
    func stop() throws -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// What a process printed so far.
final class Printed: Sendable {
    let text = Mutex("")
}
