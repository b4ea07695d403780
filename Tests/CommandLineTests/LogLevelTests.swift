import DatabaseTestSupport
import Foundation
import Testing

/// The long-running commands take `--log-level`, as `serve` does; a level or a slow-statement threshold that cannot be
/// used is refused before anything runs.
@Suite("--log-level and GEOLEDGER_SLOW_STATEMENT_MS")
struct LogLevelTests {
    @Test("each long-running command names --log-level in its help", arguments: ["serve", "ingest", "project", "replay"])
    func helpNamesIt(command: String) throws {
        let outcome = try GeoledgerProcess.run([command, "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("--log-level LEVEL"), "\(outcome.stdout)")
    }

    @Test("an unknown level is a usage error naming it", arguments: [["ingest", "-"], ["project"], ["replay"], ["serve"]])
    func unknownLevel(words: [String]) throws {
        let outcome = try GeoledgerProcess.run(words + ["--log-level", "loud"])
        #expect(outcome.status == 64, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("--log-level must be debug, info, warning or error, not 'loud'"), "\(outcome.stderr)")
    }

    @Test("a slow-statement threshold that is not whole milliseconds stops a command with exit 1, naming the variable")
    func badThreshold() throws {
        let outcome = try GeoledgerProcess.run(["status"], environment: ["GEOLEDGER_SLOW_STATEMENT_MS": "fast"])
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("GEOLEDGER_SLOW_STATEMENT_MS must be whole milliseconds"), "\(outcome.stderr)")
    }
}
