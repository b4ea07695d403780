import CommandLineArguments
import Foundation
import CJemalloc  // linked for its malloc, which serves the whole process (docs/performance.md, "The allocator and replay")
import Ingestion
import Postgres

let usage = """
    Usage: geoledger-bench [COMMAND] [OPTIONS]

    Benchmarks, printed as name=value lines. bulk and ingest use the server named by DATABASE_URL (or libpq's
    PG* variables), in a table or a database of their own that they drop at the end.

    Commands:
      all [OPTIONS]            region, json, bulk, ingest (with history, reports and console) and http, then a RESULT
                               line (the default)
      region [GEOLEDGER]       region classification in process, and through the geoledger binary (by default
                               the one next to this program)
      json                     JSON reading of the workload's lines: this project's parser, its validator,
                               JSONSerialization, in µs of CPU per line (no database)
      bulk                     the bulk insert paths: COPY, INSERT from arrays, pipelined INSERT, each in
                               the same transactions, in turn, three times; the median rate of each
      ingest [OPTIONS]         the server's fsync, synchronous_commit and full_page_writes, then ingest of a
                               generated workload against COPY of the same rows, each pair on a fresh
                               database, and each pair's ratio and their median; then replay, history, reports.
                               Each pair prints the server CPU per appended event of the ingest
                               (ingest_server_us_per_event), of COPY of the event rows into a copy of the
                               log's table (copy_server_us_per_event), and of that COPY plus COPY of the
                               fix history's rows into a copy of its table with all its indexes
                               (copy_with_fixes_server_us_per_event): the floor for the log and the one
                               projection row per fix
      history [OPTIONS]        the workload ingested (untimed) into a fresh database, then history: the
                               first page (100 rows) of the busiest merchant and terminal and of a sample
                               of others, in ms (history_ms= the slowest), and the plan of the busiest
                               merchant's page
      console [OPTIONS]        the workload ingested (untimed) into a fresh database, then the web console's
                               pages served in process and timed by the server (from the request's headers to
                               its answer): the start page, a search, the busiest merchant and terminal and a
                               sample of others, a visit, an enterprise, a history page of 1,000 rows, every
                               report's page and the drift report's CSV; each page's slowest in ms
                               (console_<page>_ms), the slowest page of all (console_slowest_page,
                               console_ms), and each report's query alone as its page runs it
                               (console_report_<name>_query_ms); 'all' does the same on the replayed database
      http [OPTIONS]           the workload POSTed to geoledger serve (the binary next to this program) in
                               batches of 1,000 by 4 clients on loopback, against COPY of the same rows:
                               the rate until the last batch is acknowledged (http_events_per_s) and until
                               serve's projector has passed it (http_projected_events_per_s), where serve's
                               projector took the events from, the CPU per appended event of serve and of
                               the database server, and the database server's per row of the COPY
                               (http_copy_server_us_per_event);
                               then, on that database, p50 and p99 latency of single requests, one at a
                               time, and the server's peak resident memory (VmHWM)
      citus [OPTIONS]          the same workload through the same stages on the server (plain_ lines) and
                               on a throwaway Citus cluster it starts (citus_ lines; Citus installed by
                               make citus), each on a fresh database: ingest, verify, replay (each with its
                               time, rate, and CPU per event of this process, of each node -- coordinator,
                               worker1, worker2 -- and of all nodes, in µs), then history and reports
      soak [OPTIONS]           geoledger serve on a fresh database, one client posting batches at a steady
                               rate for N minutes: serve's resident memory (VmRSS) after the first minute and
                               at the end, and the p99 latency of the second and of the last minute; not part
                               of all (--minutes N, default 10; --rate EVENTS_PER_S, default 500;
                               --batch-size N, default 50; --seed S)
      workload FILE [OPTIONS]  write the ingest's workload to FILE as NDJSON (no database)
      reports [OPTIONS]        ingest the workload into a fresh database, then time every report with its
                               default filters (report_<name>_ms, the best of three) and print the plans
                               of the statements inside the slowest's function, executed (auto_explain,
                               which takes a superuser); 'all' does the same on the replayed database

    Options of all, ingest, history, reports, console, http, citus and workload:
      --events N       events in the workload (default 1,000,000)
      --seed S         the workload's random seed
      --duplicates R   share of valid lines sent a second time, within 0...1 (default 0.01)
      --invalid R      invalid lines, as a share of the valid ones, within 0...1 (default 0.001)
      --batch-size N   events per transaction (default \(StreamIngestor.defaultBatchSize))
    Options of citus (besides the workload's; --events defaults to \(CitusBench.defaultEvents)):
      --port N         the coordinator's port; the workers take N+1 and N+2 (default \(CitusBench.defaultPort))
      --dir DIR        a new folder for the cluster, removed at the end (default: a fresh one under /tmp)
    Options of all and ingest (http takes and ignores --pairs):
      --pairs N        ingest-against-COPY pairs (default 3)
      --statements     after each ingest, HTTP ingest and COPY, a line per statement that pg_stat_statements
                       recorded: its share of the statement time, and per event its time, shared blocks
                       hit and dirtied, WAL records and bytes (the server must load pg_stat_statements)

    The RESULT line, last: RESULT ingest_vs_copy=R http_events_per_s=H copy_events_per_s=C fsync=...
    synchronous_commit=... full_page_writes=..., where H is the HTTP rate until acknowledged, C the COPY
    rate of the same run and R the HTTP rate until the projections hold every acknowledged event, over C. The ingest's medians come before it, as ingest_vs_copy_median and
    copy_events_per_s_median.

    Exit status: 0 ok, 1 failure, 64 usage.
    """

let words = Array(CommandLine.arguments.dropFirst())
let command = words.first ?? "all"
let rest = Array(words.dropFirst())

func report(_ results: [String: Double]) {
    for (name, value) in results.sorted(by: { $0.key < $1.key }) { emit("\(name)=\(value)") }
}

/// The middle value, or the mean of the two middle ones; `values` must not be empty.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Prints a line and flushes it even into a file or pipe: a full run takes minutes and its stages should show
/// as they end.
func emit(_ line: String) {
    print(line.hasPrefix(" ") ? line : EmitPrefix.current + line)
    fflush(nil)
}

/// The command's options, with at most `positionals` arguments besides them.
func parse(_ words: [String], options: Set<String> = [], flags: Set<String> = [], positionals: Int = 0) throws -> Arguments {
    let arguments = try Arguments(words, options: options, flags: flags)
    if arguments.positionals.count > positionals {
        throw UsageError("unexpected argument '\(arguments.positionals[positionals])'")
    }
    return arguments
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

if words.contains("--help") || words.contains("-h") {
    print(usage)
    exit(0)
}

do {
    switch command {
    case "region":
        report(RegionBench.run(geoledgerPath: try parse(rest, positionals: 1).positionals.first))
    case "json":
        _ = try parse(rest)
        report(JSONBench.run())
    case "bulk":
        _ = try parse(rest)
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
    case "workload":
        // Writes the ingest suite's workload to a file, for `geoledger ingest` or a profiler.
        let arguments = try parse(rest, options: Bench.Options.workloadNames, positionals: 1)
        guard let path = arguments.positionals.first else { throw UsageError("say which file to write") }
        let counts = try Bench.Options(arguments).spec.write(to: path)
        print("wrote \(counts.valid) events, \(counts.duplicate) duplicate and \(counts.invalid) invalid lines to \(path)")
    case "history":
        let options = try Bench.Options(try parse(rest, options: Bench.Options.workloadNames))
        try IngestBench.runHistory(server: .fromEnvironment(), options: options)
    case "ingest":
        let options = try Bench.Options(try parse(rest, options: Bench.Options.names, flags: Bench.Options.flags))
        let durability = try Bench.durability(server: .fromEnvironment())
        _ = try Bench.withWorkload(options) { path, counts in
            try IngestBench.run(server: .fromEnvironment(), options: options, workload: path, counts: counts, durability: durability)
        }
    case "citus":
        try CitusBench.run(try parse(rest, options: CitusBench.optionNames))
    case "console":
        let options = try Bench.Options(try parse(rest, options: Bench.Options.workloadNames))
        try Bench.withIngestedWorkload(server: .fromEnvironment(), options: options) { connection, database in
            try Bench.settle(connection, before: "console")
            try ConsoleBench.run(database: database, on: connection)
        }
    case "reports":
        let arguments = try parse(rest, options: Bench.Options.workloadNames)
        try ReportsBench.run(server: .fromEnvironment(), options: try Bench.Options(arguments))
    case "http":
        let options = try Bench.Options(try parse(rest, options: Bench.Options.names, flags: Bench.Options.flags))
        let admin = try Connection.connect(.fromEnvironment())
        defer { admin.close() }
        _ = try Bench.withWorkload(options) { path, _ in
            try HTTPBench.run(server: .fromEnvironment(), admin: admin, options: options, workload: path)
        }
    case "soak":
        let options = try SoakBench.Options(try parse(rest, options: SoakBench.optionNames))
        let admin = try Connection.connect(.fromEnvironment())
        defer { admin.close() }
        try SoakBench.run(server: .fromEnvironment(), admin: admin, options: options)
    case "all":
        let ingestOptions = try Bench.Options(try parse(rest, options: Bench.Options.names, flags: Bench.Options.flags))
        report(RegionBench.run(geoledgerPath: nil))
        report(JSONBench.run())
        report(try BulkInsertBench.run(configuration: .fromEnvironment()))
        let admin = try Connection.connect(.fromEnvironment())
        defer { admin.close() }
        let durability = try Bench.durability(server: .fromEnvironment())
        let (ingest, http) = try Bench.withWorkload(ingestOptions) { path, counts in
            (try IngestBench.run(
                server: .fromEnvironment(), options: ingestOptions, workload: path, counts: counts, durability: durability),
             try HTTPBench.run(server: .fromEnvironment(), admin: admin, options: ingestOptions, workload: path))
        }
        // Tools read the first three fields: the HTTP API's ratio and rates, from the same run.
        let settings = ingest.durability.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        emit("RESULT ingest_vs_copy=\(http.ingestVsCopy) http_events_per_s=\(http.httpEventsPerSecond) copy_events_per_s=\(http.copyEventsPerSecond) \(settings)")
    default:
        fail("geoledger-bench: unknown command '\(command)'\nSee 'geoledger-bench --help'.", status: 64)
    }
} catch let error as UsageError {
    fail("geoledger-bench \(command): \(error)\nSee 'geoledger-bench --help'.", status: 64)
} catch {
    fail("geoledger-bench \(command): \(error)", status: 1)
}
