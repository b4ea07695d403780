import CommandLineArguments
import Foundation
import GeoledgerAPI
import Postgres
import RawHTTPClient
import Workload

/// `soak`: `geoledger serve` on a fresh database, one client posting batches at a steady rate for some minutes; the
/// server's resident memory after the first minute and at the end, and the p99 latency of the second and the last
/// minute, so that a leak or a slowdown over time shows.
enum SoakBench {
    static let optionNames: Set<String> = ["minutes", "rate", "batch-size", "seed"]

    struct Options {
        var minutes = 10
        /// Events a second.
        var rate = 500
        var batchSize = 50
        var seed: UInt64 = 20_261_205

        init(_ arguments: Arguments) throws {
            minutes = try arguments.integer("minutes", default: minutes, range: 1...1440) ?? minutes
            rate = try arguments.integer("rate", default: rate, range: 1...100_000) ?? rate
            batchSize = try arguments.integer("batch-size", default: batchSize, range: 1...10_000) ?? batchSize
            if let seed = arguments.value("seed") {
                guard let number = UInt64(seed) else { throw UsageError("--seed must be a whole number, not '\(seed)'") }
                self.seed = number
            }
        }
    }

    /// One POST: when it was sent, in seconds since the start, and how long its answer took.
    private struct Sample {
        let sent: Double
        let milliseconds: Double
    }

    static func run(server: PostgresConfiguration, admin: Connection, options: Options) throws {
        let seconds = Double(options.minutes * 60)
        let events = options.rate * options.minutes * 60
        // Generated as they are sent: memory does not grow with the run's length.
        let spec = WorkloadSpec(
            merchants: max(1, events / 20), terminals: events / 10, events: events, seed: options.seed, shuffle: false)
        var lines = spec.lines().makeIterator()
        emit("soak_minutes=\(options.minutes)")
        emit("soak_rate_target=\(options.rate)")
        emit("soak_batch_events=\(options.batchSize)")
        try Bench.withDatabase(server, admin: admin) { connection, database in
            let token = try TokenStore().create(name: "soak", scopes: [.admin], on: connection)
            let serve = try ServeProcess(database: database)
            defer { serve.stop() }
            let client = try RawClient.bench(port: serve.port)
            var samples: [Sample] = []
            var acknowledged = 0, failed = 0, latest = 0.0
            var residentAfterFirstMinute: Double?
            let start = ContinuousClock.now
            func elapsed() -> Double { (ContinuousClock.now - start) / .seconds(1) }
            var batch = 0
            while true {
                // Batch n is due at n × batchSize / rate seconds; one that is late is sent at once.
                let due = Double(batch * options.batchSize) / Double(options.rate)
                guard due < seconds else { break }
                let now = elapsed()
                if due > now { usleep(UInt32((due - now) * 1_000_000)) }
                latest = max(latest, elapsed() - due)
                var body: [UInt8] = []
                for _ in 0..<options.batchSize {
                    guard let line = lines.next() else { break }
                    body += Array(line.utf8)
                    body.append(0x0A)
                }
                let sent = elapsed()
                let answer = try client.request("POST", "/v1/events", token: token, body: body)
                samples.append(Sample(sent: sent, milliseconds: (elapsed() - sent) * 1000))
                if answer.status == 200 { acknowledged += options.batchSize } else { failed += 1 }
                if residentAfterFirstMinute == nil && elapsed() >= 60 {
                    residentAfterFirstMinute = serve.residentMegabytes()
                    emit("soak_rss_mb_after_first_minute=\(residentAfterFirstMinute.map { String($0) } ?? "unknown")")
                }
                batch += 1
            }
            let total = elapsed()
            let end = serve.residentMegabytes()
            if residentAfterFirstMinute == nil {
                // A one-minute run: its first minute ends now.
                residentAfterFirstMinute = end
                emit("soak_rss_mb_after_first_minute=\(end.map { String($0) } ?? "unknown")")
            }
            emit("soak_rss_mb_end=\(end.map { String($0) } ?? "unknown")")
            if let first = residentAfterFirstMinute, let end {
                emit("soak_rss_mb_growth=\(((end - first) * 10).rounded() / 10)")
            }
            func p99(from: Double, to: Double) -> String {
                let window = samples.filter { $0.sent >= from && $0.sent < to }.map(\.milliseconds).sorted()
                return window.isEmpty ? "none" : String(HTTPBench.percentile(99, of: window))
            }
            // A run of one minute has no second minute.
            emit("soak_p99_ms_second_minute=\(options.minutes >= 2 ? p99(from: 60, to: 120) : "none")")
            emit("soak_p99_ms_last_minute=\(p99(from: max(0, seconds - 60), to: .infinity))")
            emit("soak_events_acknowledged=\(acknowledged)")
            emit("soak_events_per_s=\(Double(acknowledged) / total)")
            emit("soak_batches_failed=\(failed)")
            emit("soak_most_behind_schedule_s=\(latest)")
        }
    }
}

extension ServeProcess {
    /// The memory the server holds resident now (VmRSS), in MB.
    func residentMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ")[1]) else { return nil }
        return kilobytes / 1024
    }
}
