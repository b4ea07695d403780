import CommandLineArguments
import Foundation
import Output
import Projections

/// `status` and `project`: where the projections stand against the log, and catching them up.
enum ProjectorCommands {
    static let all = [status, project]

    static let status = Command(
        words: ["status"], summary: "the log's head and how far the projections are behind it",
        help: """
            Usage: geoledger status [--format table|json]

            Prints the log's last position, the last position the projections hold (the projector's
            checkpoint), how many events lie between them and how long ago the oldest of those was recorded.
            The projector keeps the projections behind the log: 'serve' runs it continuously and 'ingest'
            ends with it caught up, so the lag is usually zero or a batch's worth. Reads (show, history,
            visits, report, and the API's GETs) wait for it to pass the log's head before they answer.

            Example:
              geoledger status
              geoledger status --format json
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["format"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let format = try arguments.choice("format", from: ["table", "json"], default: "table")
            let connection = try Settings.fromEnvironment().connect()
            defer { connection.close() }
            let lag = try ProjectionLag.read(on: connection)
            if format == "json" {
                print(#"{"head":\#(lag.head),"projected":\#(lag.projected),"lagEvents":\#(lag.events),"lagSeconds":\#(String(format: "%.3f", lag.seconds))}"#)
            } else {
                print("log head        \(lag.head)")
                print("projected up to \(lag.projected)")
                print("behind          \(lag.events == 0 ? "nothing: caught up" : lag.description)")
            }
            return ExitCode.ok
        })

    static let project = Command(
        words: ["project"], summary: "catch the projections up with the log, however long it takes",
        help: """
            Usage: geoledger project [--batch-size N] [--log-level LEVEL]

            Projects every event the log holds beyond the projections' checkpoint, in batches, each in one
            transaction with the checkpoint, and returns once they hold the log's head as of its start. One
            projector writes at a time: while another runs (a 'serve', an 'ingest'), this one waits for it.
            Stopping it at any point loses nothing: the next run goes on from the last committed batch.
            Reads catch the projections up by themselves for up to GEOLEDGER_READ_TIMEOUT; this is for a lag
            larger than that, such as after a process that appended was killed.

            Options:
              --batch-size N   events projected in one transaction, 1 to 100000 (default \(ProjectorRunner.Settings().batchSize))
              --log-level LEVEL
                               debug, info, warning or error (GEOLEDGER_LOG_LEVEL, default info): JSON lines
                               on stderr, a line per batch at debug, a failed batch at warning, a slow
                               statement (GEOLEDGER_SLOW_STATEMENT_MS, default 5000)

            Example:
              geoledger project && geoledger status
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["batch-size", "log-level"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            var settings = Settings.fromEnvironment(try Settings.environment(logLevel: arguments.value("log-level")))
            if let text = arguments.value("batch-size") {
                guard let size = Int(text), (1...100_000).contains(size) else {
                    throw UsageError("--batch-size must be a whole number from 1 to 100000, not '\(text)'")
                }
                settings.projectorSettings.batchSize = size
            }
            let connection = try settings.connect()
            defer { connection.close() }
            let before = try ProjectionLag.read(on: connection)
            let head = try settings.projector().catchUp(on: connection)
            let count = max(0, head - before.projected)
            print("projected \(count) event\(count == 1 ? "" : "s"); the projections hold the log up to \(head)")
            return ExitCode.ok
        })
}
