import EventStore
import Foundation

/// `verify` (and, later, `replay`): whole-log operations.
enum MaintenanceCommands {
    static let verify = Command(
        words: ["verify"], summary: "recompute every stream's hash chain and report the first broken link",
        help: """
            Usage: geoledger verify

            Walks the event log in position order, recomputing each event's hash from its content and its
            stream's previous hash, and checks that positions and stream versions are gap-free.
            Exit status 0 when every chain is intact, 1 with the first broken event named otherwise.
            """,
        run: { words in
            let arguments = try Arguments(words)
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let connection = try Settings.fromEnvironment().connect()
            let report = try Verifier().verify(on: connection)
            if let broken = report.firstBrokenLink {
                print("BROKEN \(broken)")
                print("checked \(report.eventsChecked) events before it")
                return ExitCode.failure
            }
            print("ok: \(report.eventsChecked) events in \(report.streamsChecked) streams, every chain intact")
            return ExitCode.ok
        })
}
