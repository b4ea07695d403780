import CommandLineArguments
import EventStore
import Foundation
import Output
import Projections

/// `verify` and `replay`: whole-log operations.
enum MaintenanceCommands {
    static let all = [verify, replay]

    static let replay = Command(
        words: ["replay"], summary: "rebuild every projection from the event log",
        help: """
            Usage: geoledger replay [--quiet] [--owner-url URL] [--log-level LEVEL]

            Rebuilds the projections (fix history, address positions, terminals, visits, failures) from the
            whole log into fresh tables and swaps them in at the end, in one transaction: readers see the old
            tables until the new ones are complete. Appends go on while it runs; those that land meanwhile are
            included before the swap. The result does not depend on the order in which events arrived. The new
            tables get the privileges the old ones had.
            GEOLEDGER_STATEMENT_TIMEOUT does not apply (nor to 'migrate'): the indexes of a large log take
            minutes to build.
            A replay that fails drops its fresh tables; those of a replay that was killed go at the next.

            It creates and swaps schemas, so it connects as the owner of the tables, as 'migrate' does:
            --owner-url, else GEOLEDGER_OWNER_URL, else the private cluster's owner when DATABASE_URL is not set
            and the cluster exists, else DATABASE_URL.

            A replay is also how a corrected catalogue of provider error codes reaches the failures stored
            before it: each failure's category is recomputed from its provider, code and platform.

            Options:
              --quiet           no progress line
              --owner-url URL   the owner's connection URL
              --log-level LEVEL
                                debug, info, warning or error (GEOLEDGER_LOG_LEVEL, default info): JSON lines
                                on stderr for a reconnect or a slow statement (GEOLEDGER_SLOW_STATEMENT_MS,
                                default 5000; a large log's index builds are)

            Example (after 'geoledger migrate' on a server you run yourself):
              geoledger replay --owner-url postgresql://geoledger_owner@db.example/geoledger
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["owner-url", "log-level"], flags: ["quiet"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let settings = Settings.fromEnvironment(
                try Settings.environment(logLevel: arguments.value("log-level")), ownerURL: arguments.value("owner-url"))
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
        words: ["verify"], summary: "recompute every hash chain and report the first broken link; check a kept head",
        help: """
            Usage: geoledger verify [--head POSITION:HASH]

            Walks the event log in position order, recomputing each event's hash from its content and its
            stream's previous hash, and its log hash from its hash and the log hash of the event before it;
            checks that positions and stream versions are gap-free. Then prints the log's head on a line of its
            own: head=POSITION:HASH, the last event's position and log hash in lower-case hex (head=0: and 64
            zeros for an empty log). geoledger ingest prints the head it leaves in the same form.

            The log hash chains every event in position order, so a head stands for the whole log up to its
            position. Keep heads where the database's administrators cannot change them (a batch job's log, a
            ticket): --head then shows whether events were later removed from the end of the log, replaced or
            rewritten, which the chains in the database alone cannot show.

            Options:
              --head POSITION:HASH   also check that the log still holds this head: that its event at POSITION
                                     has this log hash. Events appended since do not matter. A leading head=
                                     is accepted.

            Exit status 0 when every chain is intact and the log holds the head; 1 naming the first broken event,
            or where the log no longer holds the head.

            Example (the head an earlier ingest or verify printed):
              geoledger verify --head 1200:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["head"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let kept = try arguments.value("head").map { text in
                guard let head = LogHead(text.hasPrefix("head=") ? String(text.dropFirst(5)) : text) else {
                    throw UsageError(
                        "--head must be POSITION:HASH, a position and 64 hex digits as verify and ingest print them after head=, not '\(text)'")
                }
                return head
            }
            let connection = try Settings.fromEnvironment().connect()
            let report = try Verifier().verify(on: connection, holding: kept)
            if let broken = report.firstBrokenLink {
                print("BROKEN \(broken)")
                print("checked \(report.eventsChecked) events before it")
                return ExitCode.failure
            }
            print("ok: \(report.eventsChecked) events in \(report.streamsChecked) streams, every chain intact")
            var held = true
            if let kept, let check = report.keptHead {
                switch check {
                case .held:
                    print("ok: the log holds head \(kept)")
                case .logEndsBefore(let head):
                    held = false
                    print("NOT HELD head \(kept): the log ends at position \(head.position), before it")
                case .differs(let head):
                    held = false
                    print("NOT HELD head \(kept): the log has \(head) there: an event up to it is not what it was")
                }
            }
            print("head=\(report.head)")
            return held ? ExitCode.ok : ExitCode.failure
        })
}
