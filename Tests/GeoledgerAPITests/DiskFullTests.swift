import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import LocalPostgres
import RawHTTPClient
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL whose data directory sits on a small file system of its own (a tmpfs the test mounts, as root),
/// filled while clients post.
@Suite("the database's disk fills up under load, and recovers")
struct DiskFullTests {
    @Test("4 clients post until the database's disk is full: appends answer 503 database_full with Retry-After, the feed still reads, ingest exits 1 saying so; once space is freed every retried batch is stored, each event once, and verify passes")
    func diskFills() async throws {
        try await onThread {
            let disk = try SmallFileSystem(megabytes: 128)
            defer { disk.remove() }
            let cluster = try disk.startCluster(port: 55_800 + Int.random(in: 0..<100))
            defer { try? cluster.stop() }
            let url = cluster.url(as: .app)
            let migrated = try GeoledgerProcess.run(
                ["migrate", "--owner-url", cluster.url(as: .owner), "--app-role", LocalCluster.Role.app.name],
                environment: ["DATABASE_URL": url])
            try #require(migrated.status == 0, "\(migrated.stderr)")
            let token = try ServeProcess.adminToken(url: url)
            let serve = try ServeProcess(url: url)
            // A few MB left: filled within seconds.
            try disk.fill(leavingMegabytes: 4)

            let clients = PostingClients(count: 4, token: token, port: serve.port)
            try waitFor("every client to be answered database_full", seconds: 120) { clients.clientsAnsweredFull == 4 }

            // While it is full: the feed reads, and ingest stops saying why, with nothing of its batch stored.
            let feed = try ServeProcess.get("/v1/events?after=0&limit=10", token: token, port: serve.port)
            #expect(feed.status == 200, "\(feed.text.prefix(300))")
            let ingestIDs = (0..<20).map { _ in UUID() }
            let file = disk.scratch + "/ingest.ndjson"
            try ingestIDs.enumerated().map { Submissions.merchantFix("I\($0.offset)", id: $0.element) }.joined(separator: "\n")
                .write(toFile: file, atomically: true, encoding: .utf8)
            let ingest = try GeoledgerProcess.run(["ingest", "--quiet", file], environment: ["DATABASE_URL": url])
            #expect(ingest.status == 1, "\(ingest.stdout)\(ingest.stderr)")
            #expect(ingest.stderr.contains("the database has no space left to write"), "\(ingest.stderr)")
            #expect(try ServeProcess.storedIDs(url: url).isDisjoint(with: ingestIDs.map { $0.uuidString.lowercased() }))

            try disk.freeBallast()
            clients.spaceFreed()
            try waitFor("every client to have 2 batches stored after the space was freed", seconds: 120) {
                clients.everyClientStoredAfterFreeing(2)
            }
            let records = try clients.stop()

            let sent = records.flatMap(\.sent), acknowledged = records.flatMap(\.acknowledged)
            #expect(records.allSatisfy { $0.otherRefusals.isEmpty }, "\(records.map(\.otherRefusals))")
            #expect(sent.count == acknowledged.count, "every batch was stored in the end")
            let stored = try ServeProcess.storedIDs(url: url)
            #expect(stored == Set(acknowledged.map { $0.uuidString.lowercased() }), "an acknowledged event is missing, or one not sent is stored")
            let total = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": url])
            #expect(total.status == 0, "\(total.stdout)\(total.stderr)")
            #expect(total.stdout.contains("\(stored.count) events"), "each event stored once: \(total.stdout)")
            // ingest, run again with space, stores its batch.
            #expect(try GeoledgerProcess.run(["ingest", "--quiet", file], environment: ["DATABASE_URL": url]).status == 0)
            kill(serve.pid, SIGTERM)
            #expect(try serve.waitForExit(seconds: 30) == 0)
        }
    }

    private func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { usleep(50_000) }
        try #require(condition(), "waited for \(what) for \(seconds) s")
    }
}

/// What one client sent and what became of it.
struct PostingRecord: Sendable {
    var sent: [UUID] = []
    var acknowledged: [UUID] = []
    var answeredFull = 0
    var storedAfterFreeing = 0
    var otherRefusals: [String] = []
}

/// Clients on threads of their own, each posting batches of 50 and sending a batch again, as Retry-After asks, until
/// it is stored.
final class PostingClients: Sendable {
    private let records: Mutex<[PostingRecord]>
    private let freed = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchGroup()
    private let failures = Mutex<[String]>([])

    init(count: Int, token: String, port: Int) {
        records = Mutex(Array(repeating: PostingRecord(), count: count))
        for client in 0..<count {
            finished.enter()
            Thread.detachNewThread { [self] in
                do { try post(client, token: token, port: port) } catch { failures.withLock { $0.append("client \(client): \(error)") } }
                finished.leave()
            }
        }
    }

    var clientsAnsweredFull: Int { records.withLock { $0.filter { $0.answeredFull > 0 }.count } }

    func everyClientStoredAfterFreeing(_ batches: Int) -> Bool {
        records.withLock { $0.allSatisfy { $0.storedAfterFreeing >= batches } }
    }

    func spaceFreed() { freed.store(true, ordering: .releasing) }

    /// Lets each client finish the batch it is sending, and returns their records.
    func stop() throws -> [PostingRecord] {
        stopping.store(true, ordering: .releasing)
        guard finished.wait(timeout: .now() + 120) == .success else { throw RawClient.Failure(description: "the clients did not stop") }
        let failed = failures.withLock { $0 }
        guard failed.isEmpty else { throw RawClient.Failure(description: failed.joined(separator: "; ")) }
        return records.withLock { $0 }
    }

    private func post(_ client: Int, token: String, port: Int) throws {
        var batch = 0
        while !stopping.load(ordering: .acquiring) {
            let ids = (0..<50).map { _ in UUID() }
            let lines = ids.enumerated().map { Submissions.merchantFix("D\(client)-\(batch)-\($0.offset % 5)", id: $0.element) }
            records.withLock { $0[client].sent += ids }
            let deadline = ContinuousClock.now + .seconds(240)
            while true {
                guard ContinuousClock.now < deadline else { throw RawClient.Failure(description: "batch \(batch) never stored") }
                let answer = try ServeProcess.post(lines, token: token, port: port)
                if answer.status == 200 {
                    let statuses = try answer.statuses
                    let wasFreed = freed.load(ordering: .acquiring)
                    records.withLock { records in
                        if statuses.allSatisfy({ $0 == "appended" }) {
                            records[client].acknowledged += ids
                        } else {
                            records[client].otherRefusals.append("statuses \(Set(statuses))")
                        }
                        if wasFreed { records[client].storedAfterFreeing += 1 }
                    }
                    break
                }
                records.withLock { records in
                    if answer.status == 503 && answer.errorCode == "database_full" && answer.headers["Retry-After"] != nil {
                        records[client].answeredFull += 1
                    } else if !(answer.status == 503 && answer.errorCode == "projections_behind") {
                        // The projector cannot write either while the disk is full; appends wait for it past the lag bound.
                        records[client].otherRefusals.append("\(answer.status) \(answer.text.prefix(200))")
                    }
                }
                usleep(300_000)
            }
            batch += 1
        }
    }
}

/// A tmpfs of its own under /tmp, mounted by the test (as root), holding a PostgreSQL cluster, and a ballast file that
/// fills it. Removing it stops nothing: stop the cluster first.
final class SmallFileSystem: Sendable {
    let mountPoint: String
    /// A folder on the ordinary file system beside it, for the cluster's WAL and the test's files.
    let scratch: String
    private var ballast: String { mountPoint + "/ballast" }

    init(megabytes: Int) throws {
        let base = "/tmp/geoledger-small-fs-\(UUID().uuidString.prefix(8))"
        mountPoint = base + "/mnt"
        scratch = base + "/scratch"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        _ = chmod(base, 0o755)
        _ = chmod(scratch, 0o777)
        let mount = try GeoledgerProcess.run(
            ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", mountPoint], executable: "/bin/mount")
        guard mount.status == 0 else {
            try? FileManager.default.removeItem(atPath: base)
            throw RawClient.Failure(description:
                "this test needs a small file system of its own for PostgreSQL's data, and could not make one: 'mount -t "
                    + "tmpfs' failed (\(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines))). Run it as root "
                    + "(CI does), where mounting is allowed.")
        }
    }

    /// A cluster with its data directory on this file system and its WAL beside it, on the ordinary one: so that what
    /// runs out is the space for tables and indexes, where PostgreSQL fails the statement (a full WAL disk makes it
    /// stop).
    func startCluster(port: Int) throws -> LocalCluster {
        let cluster = LocalCluster(folder: URL(fileURLWithPath: mountPoint + "/cluster"), port: port)
        try cluster.start(durable: false, settings: "shared_buffers = 16MB\nmax_wal_size = 256MB\n")
        try cluster.stop()
        let wal = mountPoint + "/cluster/pgdata/pg_wal", moved = scratch + "/pg_wal"
        try FileManager.default.moveItem(atPath: wal, toPath: moved)
        let owned = try GeoledgerProcess.run(["-R", "postgres:postgres", moved], executable: "/bin/chown")
        guard owned.status == 0 else { throw RawClient.Failure(description: "chown \(moved): \(owned.stderr)") }
        try FileManager.default.createSymbolicLink(atPath: wal, withDestinationPath: moved)
        try cluster.start(durable: false)
        return cluster
    }

    /// Writes a ballast file that leaves `megabytes` free.
    func fill(leavingMegabytes megabytes: Int) throws {
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { throw RawClient.Failure(description: "statvfs \(mountPoint) failed") }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let size = free - megabytes << 20
        guard size > 0 else { throw RawClient.Failure(description: "only \(free >> 20) MB free on \(mountPoint)") }
        guard FileManager.default.createFile(atPath: ballast, contents: nil) else {
            throw RawClient.Failure(description: "cannot create \(ballast)")
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: ballast))
        let chunk = Data(count: 1 << 20)
        for _ in 0..<(size >> 20) { try file.write(contentsOf: chunk) }
        try file.close()
    }

    func freeBallast() throws {
        try FileManager.default.removeItem(atPath: ballast)
    }

    func remove() {
        let base = URL(fileURLWithPath: mountPoint).deletingLastPathComponent().path
        _ = try? GeoledgerProcess.run([mountPoint], executable: "/bin/umount")
        try? FileManager.default.removeItem(atPath: base)
    }
}
