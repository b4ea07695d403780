import DatabaseTestSupport
import Foundation
import Testing

/// `geoledger-bench ingest` says what its figures were taken with and how much they vary: the server's durability
/// settings, every pair's ratio and their median.
@Suite("geoledger-bench ingest: durability settings, pairs and their median")
struct BenchIngestTests {
    @Test("three pairs on a small workload: the settings the server reports, three ratios, their median, CPU per event")
    func threePairs() throws {
        // The bench makes a database of its own for each pair; this one is where it connects first.
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let outcome = try GeoledgerProcess.run(
            ["ingest", "--events", "300", "--pairs", "3"], environment: ["DATABASE_URL": database.url],
            executable: GeoledgerProcess.benchBinary)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map { line -> (String, String) in
            let parts = line.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count == 2 ? String(parts[1]) : "")
        }
        func values(_ name: String) -> [String] { lines.filter { $0.0 == name }.map(\.1) }

        // Only what PostgreSQL can answer to SHOW, once each, before anything else.
        #expect(lines.prefix(3).map(\.0) == ["fsync", "synchronous_commit", "full_page_writes"])
        #expect(values("fsync").count == 1 && ["on", "off"].contains(values("fsync")[0]))
        #expect(values("full_page_writes").count == 1 && ["on", "off"].contains(values("full_page_writes")[0]))
        #expect(values("synchronous_commit").count == 1
            && ["on", "off", "local", "remote_write", "remote_apply"].contains(values("synchronous_commit")[0]))

        #expect(values("pair") == ["1", "2", "3"])
        #expect(values("ingest_appended") == ["300", "300", "300"])
        // The server's CPU is counted in clock ticks, which a few hundred events may not fill: zero is a figure too.
        for name in [
            "ingest_client_us_per_event", "ingest_server_us_per_event", "copy_server_us_per_event", "copy_with_fixes_server_us_per_event",
        ] {
            #expect(values(name).count == 3, "\(name)")
            #expect(values(name).allSatisfy { Double($0).map { $0 >= 0 } ?? false }, "\(name)=\(values(name))")
        }
        let ratios = values("ingest_vs_copy")
        #expect(ratios.count == 3)
        #expect(values("ingest_vs_copy_each") == [ratios.joined(separator: ",")])
        let sorted = ratios.compactMap(Double.init).sorted()
        #expect(sorted.count == 3)
        #expect(values("ingest_vs_copy_median").compactMap(Double.init) == [sorted[1]])
        #expect(values("replay_events") == ["300"])
    }

    @Test("history: the workload ingested, then the slowest first page in ms and the busiest merchant's plan, executed")
    func history() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let outcome = try GeoledgerProcess.run(
            ["history", "--events", "500"], environment: ["DATABASE_URL": database.url], executable: GeoledgerProcess.benchBinary)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.contains("ingest_appended=500"))
        for name in ["history_merchant_ms_max=", "history_terminal_ms_max=", "history_ms="] {
            #expect(lines.contains { $0.hasPrefix(name) && Double($0.dropFirst(name.count)) != nil }, "\(name)")
        }
        let plan = lines.filter { $0.hasPrefix("history_plan=") }
        #expect(plan.contains { $0.contains("fixes") } && plan.last?.hasPrefix("history_plan=Execution Time:") == true, "\(plan)")
    }

    @Test("--statements: a line per statement of the ingest and of the COPY, or without pg_stat_statements loaded, exit 1 saying what to load")
    func statements() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let outcome = try GeoledgerProcess.run(
            ["ingest", "--events", "300", "--pairs", "1", "--statements"], environment: ["DATABASE_URL": database.url],
            executable: GeoledgerProcess.benchBinary)
        if outcome.status == 0 {
            let lines = outcome.stdout.split(separator: "\n")
            let ingest = lines.filter { $0.hasPrefix("ingest_statement=share ") }
            let copy = lines.filter { $0.hasPrefix("copy_statement=share ") }
            #expect(ingest.contains { $0.contains("| COPY events (") }, "\(ingest)")
            #expect(ingest.contains { $0.contains("| COPY projections.fixes (") }, "\(ingest)")
            #expect(copy.first?.contains("| COPY events_copy (") == true, "\(copy)")
        } else {
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("shared_preload_libraries = 'pg_stat_statements'"), "\(outcome.stderr)")
            #expect(!outcome.stdout.contains("ingest_appended="))
        }
    }
}
