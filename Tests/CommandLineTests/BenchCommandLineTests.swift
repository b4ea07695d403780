import DatabaseTestSupport
import Foundation
import Testing

/// `geoledger-bench` reads its command line as `geoledger` does: help exits 0, a mistake is a usage error, and
/// neither does any work or writes any file.
@Suite("geoledger-bench: help and usage errors")
struct BenchCommandLineTests {
    /// Runs geoledger-bench in an empty folder, with no database to reach; returns the outcome and what the folder
    /// then holds.
    func bench(_ arguments: [String]) throws -> (GeoledgerProcess.Outcome, [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outcome = try GeoledgerProcess.run(
            arguments, environment: ["DATABASE_URL": "postgresql://nobody@127.0.0.1:1/nowhere"],
            executable: GeoledgerProcess.benchBinary, directory: folder)
        return (outcome, try FileManager.default.contentsOfDirectory(atPath: folder))
    }

    @Test("workload --help prints the usage and exits 0, writing no file")
    func workloadHelp() throws {
        let (outcome, files) = try bench(["workload", "--help"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("Usage: geoledger-bench"))
        #expect(outcome.stdout.contains("workload FILE"))
        #expect(files.isEmpty, "wrote \(files)")
    }

    @Test("--help, -h and COMMAND --help print the usage and exit 0 without doing anything", arguments: [
        ["--help"], ["-h"], ["region", "--help"], ["json", "--help"], ["bulk", "--help"], ["ingest", "--help"], ["all", "--help"],
        ["citus", "--help"], ["workload", "out.ndjson", "--events", "10", "--help"],
    ])
    func help(arguments: [String]) throws {
        let (outcome, files) = try bench(arguments)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("Usage: geoledger-bench"))
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        #expect(files.isEmpty, "wrote \(files)")
    }

    @Test("an unknown option, a missing value or argument, an extra argument: exit 64 with the mistake on stderr", arguments: [
        (["workload", "out.ndjson", "--fast"], "unknown option --fast"),
        (["workload", "--quiet", "--events", "10"], "unknown option --quiet"),
        (["ingest", "--fast"], "unknown option --fast"),
        (["workload"], "say which file to write"),
        (["workload", "out.ndjson", "--events"], "--events needs a value"),
        (["workload", "out.ndjson", "--events", "ten"], "--events must be a positive integer"),
        (["ingest", "out.ndjson"], "unexpected argument 'out.ndjson'"),
        (["ingest", "--pairs", "0"], "--pairs must be a positive integer"),
        (["workload", "out.ndjson", "--pairs", "2"], "unknown option --pairs"),
        (["citus", "--port", "x"], "--port must be a port number up to 65533"),
        (["citus", "--pairs", "2"], "unknown option --pairs"),
        (["citus", "--events", "0"], "--events must be a positive integer"),
        (["citus", "--dir", "/"], "--dir / exists: name a new folder"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ])
    func usageError(arguments: [String], message: String) throws {
        let (outcome, files) = try bench(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("geoledger-bench --help"), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
        #expect(files.isEmpty, "wrote \(files)")
    }
}
