import EventStore
import Foundation
import Projections

/// `verify` and `replay`: whole-log operations.
enum MaintenanceCommands {
    static let all = [verify, replay]

    static let replay = Command(
        words: ["replay"], summary: "rebuild every projection from the event log",
        help: """
            Usage: geoledger replay [--quiet] [--owner-url URL]

            Rebuilds the projections (fix history, address positions, terminals, visits, failures) from the
            whole log into fresh tables and swaps them in at the end, in one transaction: readers see the old
            tables until the new ones are complete. Appends go on while it runs; those that land meanwhile are
            included before the swap. The result does not depend on the order in which events arrived. The new
            tables get the privileges the old ones had.

            It creates and swaps schemas, so it connects as the owner of the tables, as 'migrate' does:
            --owner-url, else GEOLEDGER_OWNER_URL, else the private cluster's owner when DATABASE_URL is not set
            and the cluster exists, else DATABASE_URL.

            Options:
              --quiet           no progress line
              --owner-url URL   the owner's connection URL
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["owner-url"], flags: ["quiet"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let settings = Settings.fromEnvironment(ownerURL: arguments.value("owner-url"))
            _ = try settings.connectAsOwner()  // a clear message when the database is unreachable
            let progress = ProgressLine(totalBytes: nil, enabled: !arguments.flag("quiet") && isatty(STDERR_FILENO) == 1)
            let count = try settings.asOwner {
                try Replayer().replay(settings.owner) { done, total in
                    progress.update(count: Int(done), bytes: Int(done), totalBytes: Int(total))
                }
            }
            progress.finish()
            print("replayed \(count) events in \(progress.elapsedText)")
            return ExitCode.ok
        })

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
