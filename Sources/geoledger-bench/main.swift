import Foundation
import CJemalloc  // linked for its malloc, which serves the whole process (README: Development)
import Postgres

/// `geoledger-bench region|bulk|ingest|all [ingest options]`: prints `name=value` lines; `all` ends with the
/// RESULT line. `geoledger-bench workload FILE [ingest options]` writes the ingest suite's workload as NDJSON. Ingest options: `--events N` (default 1,000,000), `--seed S`, `--duplicates R`, `--invalid R`,
/// `--batch-size N`.
let arguments = Array(CommandLine.arguments.dropFirst())
let suite = arguments.first ?? "all"
let options = Array(arguments.dropFirst())

func report(_ results: [String: Double]) {
    for (name, value) in results.sorted(by: { $0.key < $1.key }) { emit("\(name)=\(value)") }
}

/// Prints a line and flushes it even into a file or pipe: a full run takes minutes and its stages should show
/// as they end.
func emit(_ line: String) {
    print(line)
    fflush(nil)
}

do {
    switch suite {
    case "region":
        report(RegionBench.run(geoledgerPath: options.first))
    case "json":
        report(JSONBench.run())
    case "bulk":
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
    case "workload":
        // Writes the ingest suite's workload to a file, for `geoledger ingest` or a profiler.
        guard let path = options.first else { throw BenchUsage("say which file to write") }
        let counts = try IngestBench.Options(Array(options.dropFirst())).spec.write(to: path)
        print("wrote \(counts.valid) events, \(counts.duplicate) duplicate and \(counts.invalid) invalid lines to \(path)")
    case "ingest":
        _ = try IngestBench.run(server: .fromEnvironment(), options: try IngestBench.Options(options))
    case "all":
        let ingestOptions = try IngestBench.Options(options)
        report(RegionBench.run(geoledgerPath: nil))
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
        let ingest = Dictionary(uniqueKeysWithValues: try IngestBench.run(server: .fromEnvironment(), options: ingestOptions))
        // There is no HTTP API yet, so there is no HTTP rate to measure.
        emit("RESULT ingest_vs_copy=\(ingest["ingest_vs_copy"]!) http_events_per_s=n/a copy_events_per_s=\(ingest["copy_events_per_s"]!)")
    default:
        FileHandle.standardError.write(Data("usage: geoledger-bench [region|bulk|ingest|all|workload FILE] [--events N] [--seed S] [--duplicates R] [--invalid R] [--batch-size N]\n".utf8))
        exit(64)
    }
} catch let usage as BenchUsage {
    FileHandle.standardError.write(Data("geoledger-bench \(suite): \(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("geoledger-bench \(suite): \(error)\n".utf8))
    exit(1)
}
