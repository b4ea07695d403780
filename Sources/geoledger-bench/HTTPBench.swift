import EventStore
import Foundation
import GeoledgerAPI
import Postgres
import RawHTTPClient
import Synchronization
import Workload

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP API against COPY, on a database of its own:
/// 1. the workload's lines (the ingest bench's file) as NDJSON bodies of 1,000 lines, made before any clock starts;
/// 2. `geoledger serve` (the binary next to this one) on a free loopback port, with a token of scope admin;
/// 3. four clients, each on a keep-alive connection of its own, POST the bodies to /v1/events: full validation,
///    assessment and projections, a transaction per batch;
/// 4. COPY of the stored rows into an empty copy of the events table, as the ingest bench does;
/// 5. on the database that now holds the workload, the latency of single requests, one at a time, each probe in
///    turn (``probes``), then the server's peak resident memory (VmHWM).
enum HTTPBench {
    static let clients = 4
    static let batchSize = 1000
    /// The per-item answers counted in a batch answer.
    static let statuses = ["appended", "duplicate", "conflict", "invalid"]
    /// Requests per latency probe.
    static let probeRequests = 500

    struct Summary {
        var ingestVsCopy: String
        var httpEventsPerSecond: String
        var copyEventsPerSecond: String
    }

    /// A kind of request whose latency is measured: `requests` are sent one after another, each once.
    struct Probe {
        var name: String
        var method: String
        var requests: [(target: String, body: [UInt8])]
    }

    /// What the latency is measured of, in this order. `merchants` of the workload are `M0000001`...
    static func probes(_ spec: WorkloadSpec) -> [Probe] {
        // New events, valid, of every type, from a workload of their own.
        let fresh = WorkloadSpec(
            merchants: max(1, probeRequests / 20), terminals: probeRequests / 10, events: probeRequests,
            seed: spec.seed &+ 1, shuffle: true, duplicateRate: 0, invalidRate: 0)
        let merchantIDs = (0..<probeRequests).map { String(format: "M%07d", 1 + ($0 * 7919) % spec.merchants) }
        return [
            Probe(name: "post_one_event", method: "POST", requests: fresh.lines().prefix(probeRequests).map { ("/v1/events", Array(($0 + "\n").utf8)) }),
            Probe(name: "get_merchant", method: "GET", requests: merchantIDs.map { ("/v1/merchants/\($0)", []) }),
            Probe(name: "get_merchant_history_100", method: "GET", requests: merchantIDs.map { ("/v1/merchants/\($0)/history?limit=100", []) }),
        ]
    }

    /// - Parameter workload: the NDJSON file of the workload (``Bench/withWorkload(_:_:)``).
    static func run(server: PostgresConfiguration, admin: Connection, options: Bench.Options, workload: String) throws -> Summary {
        let spec = options.spec
        guard let file = FileManager.default.contents(atPath: workload) else { throw BenchError("cannot read \(workload)") }
        let (bodies, rendering) = Bench.timed { () -> [[UInt8]] in
            var bodies: [[UInt8]] = []
            var start = file.startIndex
            var lines = 0
            for index in file.indices where file[index] == 0x0A {
                lines += 1
                if lines == batchSize {
                    bodies.append(Array(file[start...index]))
                    start = index + 1
                    lines = 0
                }
            }
            if start < file.endIndex { bodies.append(Array(file[start...])) }
            return bodies
        }
        emit("http_batches=\(bodies.count)")
        emit("http_batch_events=\(batchSize)")
        emit("http_clients=\(clients)")
        emit("http_rendering_s=\(Bench.seconds(rendering.wall))")

        return try Bench.withDatabase(server, admin: admin) { connection, database in
            let token = try TokenStore().create(name: "bench", scopes: [.admin], on: connection)
            let serve = try ServeProcess(database: database)
            defer { serve.stop() }
            emit("http_serve_threads=\(serve.threads)")

            try Bench.settle(connection, before: "http")
            let totals = Mutex([String: Int]())
            let next = Mutex(0)
            let port = serve.port
            let postgres = try ServerCPU(name: "server", server: database)
            if options.statements { try StatementStatistics.reset(on: connection) }
            let serveBefore = serve.cpuSeconds()
            let databaseBefore = postgres.seconds()
            // Two instants: when the last batch was acknowledged, and when the projector (serve's, behind the log) had
            // passed the last acknowledged event, which is when a read sees everything.
            var acknowledged = Bench.Timing(wall: 0, clientCPU: 0, serverCPU: nil)
            var acknowledgedServeCPU = 0.0, acknowledgedDatabaseCPU = 0.0
            let (_, ingest) = try Bench.timed(backends: []) {
              let (_, posted) = try Bench.timed(backends: []) {
                try concurrently(clients) { _ in
                    let client = try RawClient.bench(port: port)
                    while true {
                        let index = next.withLock { value in
                            defer { value += 1 }
                            return value
                        }
                        guard index < bodies.count else { return }
                        let answer = try client.request("POST", "/v1/events", token: token, body: bodies[index])
                        guard answer.status == 200 else {
                            throw BenchError("POST /v1/events answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                        }
                        let counts = statuses.map { ($0, HTTPBench.count($0, in: answer.body)) }
                        totals.withLock { for (status, count) in counts { $0[status, default: 0] += count } }
                    }
                }
              }
              acknowledged = posted
              acknowledgedServeCPU = serve.cpuSeconds() - serveBefore
              acknowledgedDatabaseCPU = postgres.seconds() - databaseBefore
              try waitUntilProjected(on: connection)
            }
            let counts = totals.withLock { $0 }
            for status in statuses { emit("http_\(status)=\(counts[status, default: 0])") }
            let appended = counts["appended", default: 0]
            let perEvent = { (cpu: Double) in String(format: "%.1f", cpu / Double(max(appended, 1)) * 1e6) }
            emit("http_s=\(Bench.seconds(acknowledged.wall))")
            emit("http_projected_s=\(Bench.seconds(ingest.wall))")
            emit("http_client_cpu_s=\(Bench.seconds(acknowledged.clientCPU))")
            // What the rate costs: the serve process (reading, validating, deciding, answering, projecting) and the
            // database, in CPU per appended event, until the last acknowledgement and until the projections hold it;
            // on a machine of few cores their sum bounds the rate.
            let serveCPU = serve.cpuSeconds() - serveBefore
            let databaseCPU = postgres.seconds() - databaseBefore
            emit("http_serve_cpu_s=\(Bench.seconds(serveCPU))")
            emit("http_server_cpu_s=\(Bench.seconds(databaseCPU))")
            emit("http_serve_us_per_event=\(perEvent(serveCPU))")
            emit("http_server_us_per_event=\(perEvent(databaseCPU))")
            emit("http_acknowledged_serve_us_per_event=\(perEvent(acknowledgedServeCPU))")
            emit("http_acknowledged_server_us_per_event=\(perEvent(acknowledgedDatabaseCPU))")
            let httpRate = Double(appended) / acknowledged.wall
            let projectedRate = Double(appended) / ingest.wall
            emit("http_events_per_s=\(String(format: "%.0f", httpRate))")
            emit("http_projected_events_per_s=\(String(format: "%.0f", projectedRate))")
            // Where serve's projector took the events from: handed over by its appends, or read back from the log.
            let metrics = String(decoding: try RawClient.bench(port: port).request("GET", "/metrics", token: token).body, as: UTF8.self)
            for (name, source) in [("handed_over", "handed_over"), ("from_log", "log")] {
                let line = metrics.split(separator: "\n").first { $0.hasPrefix("geoledger_projector_events_total{source=\"\(source)\"} ") }
                emit("http_projector_events_\(name)=\(line.map { String($0.split(separator: " ").last!) } ?? "n/a")")
            }
            if options.statements { try StatementStatistics.write("http", per: appended, on: connection) }

            // COPY of the same rows, as the ingest bench does it.
            let rows = try Bench.storedRows(on: connection)
            try connection.execute("CREATE TABLE events_copy (LIKE events INCLUDING ALL)")
            try Bench.settle(connection, before: "http_copy")
            let databaseBeforeCopy = postgres.seconds()
            let (copied, copy) = try Bench.timed {
                try connection.copyFrom("COPY events_copy (\(Bench.eventColumns)) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
            guard copied == appended else { throw BenchError("COPY stored \(copied) rows, the HTTP API appended \(appended)") }
            try connection.execute("DROP TABLE events_copy")
            let copyRate = Double(copied) / copy.wall
            emit("http_copy_s=\(Bench.seconds(copy.wall))")
            emit("http_copy_events_per_s=\(String(format: "%.0f", copyRate))")
            // The database's CPU per row of the COPY, against http_server_us_per_event: what the projections and
            // the checks of an append add to the log's row, on the server.
            emit("http_copy_server_us_per_event=\(String(format: "%.1f", (postgres.seconds() - databaseBeforeCopy) / Double(max(copied, 1)) * 1e6))")
            emit("http_ingest_vs_copy=\(String(format: "%.3f", httpRate / copyRate))")
            emit("http_projected_vs_copy=\(String(format: "%.3f", projectedRate / copyRate))")

            // Latency, one request at a time, on the database that now holds the workload.
            try Bench.settle(connection, before: "http_latency")
            emit("http_latency_database_events=\(copied)")
            let client = try RawClient.bench(port: serve.port)
            for probe in probes(spec) {
                var milliseconds: [Double] = []
                var statuses: [Int: Int] = [:]
                for request in probe.requests {
                    let start = DispatchTime.now()
                    let answer = try client.request(probe.method, request.target, token: token, body: request.body)
                    milliseconds.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
                    statuses[answer.status, default: 0] += 1
                }
                milliseconds.sort()
                let status = statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
                emit("http_latency_\(probe.name)_statuses=\(status)")
                emit("http_latency_\(probe.name)_p50_ms=\(String(format: "%.2f", percentile(50, of: milliseconds)))")
                emit("http_latency_\(probe.name)_p99_ms=\(String(format: "%.2f", percentile(99, of: milliseconds)))")
            }
            emit("http_serve_peak_rss_mb=\(serve.peakResidentMegabytes().map { String(format: "%.0f", $0) } ?? "n/a")")
            return Summary(
                ingestVsCopy: String(format: "%.3f", projectedRate / copyRate), httpEventsPerSecond: String(format: "%.0f", httpRate),
                copyEventsPerSecond: String(format: "%.0f", copyRate))
        }
    }

    /// The nearest-rank percentile of sorted `values`.
    /// Returns once the projections hold the log's head as of the call, looking every 5 ms.
    static func waitUntilProjected(on connection: Connection) throws {
        let head = try EventLog().headPosition(on: connection)
        while try connection.query("SELECT position FROM projections.checkpoint").first!.decode(0, as: Int64.self) < head {
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func percentile(_ p: Double, of values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(values.count)).rounded(.up))
        return values[min(max(rank, 1), values.count) - 1]
    }

    /// The number after `"name":` at the top level of a batch answer (`"appended":12`); 0 when absent.
    static func count(_ name: String, in body: [UInt8]) -> Int {
        let key = Array("\"\(name)\":".utf8)
        guard body.count >= key.count else { return 0 }
        for start in 0...(body.count - key.count) where body[start] == key[0] && Array(body[start..<start + key.count]) == key {
            var value = 0
            var index = start + key.count
            while index < body.count, (0x30...0x39).contains(body[index]) {
                value = value * 10 + Int(body[index] - 0x30)
                index += 1
            }
            return value
        }
        return 0
    }

    /// Runs `count` copies of `body` on threads of their own, all at once; throws the first error.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        let errors = Mutex<[any Error]>([])
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do { try body(index) } catch { errors.withLock { $0.append(error) } }
            }
        }
        group.wait()
        if let error = errors.withLock({ $0.first }) { throw error }
    }
}

/// `geoledger serve` (next to this program) on a free port of 127.0.0.1, its log discarded.
final class ServeProcess {
    let process = Process()
    let port: Int
    let threads = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    init(database: PostgresConfiguration) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("geoledger").path
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--threads", "\(threads)"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = database.connectionString
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = line.firstMatch(of: /127\.0\.0\.1:(\d+)/).map({ Int($0.1)! }) else {
            process.terminate()
            throw BenchError("\(binary) serve printed no address: '\(line)'")
        }
        self.port = port
    }

    /// The most memory the server held resident so far (VmHWM), in MB.
    /// The CPU seconds the server has used so far.
    func cpuSeconds() -> Double {
        Bench.processCPU(process.processIdentifier) ?? 0
    }

    func peakResidentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ")[1]) else { return nil }
        return kilobytes / 1024
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

extension RawClient {
    /// A keep-alive connection of the bench's to serve on `port`: every write sent at once, a slow answer waited for.
    static func bench(port: Int) throws -> RawClient {
        try RawClient(port: port, timeout: .seconds(300), noDelay: true)
    }

    /// A request with the bench's token, and its body as NDJSON; the answer's status and body.
    /// - Parameter cookie: sent instead of the token, as a browser signed in to the console sends its session.
    func request(
        _ method: String, _ target: String, token: String, cookie: String? = nil, body: [UInt8] = []
    ) throws -> (status: Int, body: [UInt8]) {
        var headers = [cookie.map { (name: "Cookie", value: $0) } ?? (name: "Authorization", value: "Bearer \(token)")]
        if method == "POST" { headers.append((name: "Content-Type", value: "application/x-ndjson")) }
        let answer = try request(method, target, headers: headers, body: body)
        return (answer.status, answer.body)
    }
}
