import CommandLineArguments
import Foundation
import Ingestion
import Output
import Postgres

/// Picks the command named by the leading words and runs it; turns errors into messages and exit codes.
struct CommandLineInterface {
    let commands: [Command]

    func main(_ words: [String]) -> Int32 {
        if words.isEmpty {
            printError(overview)
            return ExitCode.usage
        }
        if ["--help", "-h", "help"].contains(words[0]) {
            print(overview)
            return ExitCode.ok
        }
        if words[0] == "--version" {
            print(Version.text)
            return ExitCode.ok
        }
        let matches = commands.filter { words.starts(with: $0.words) }
        guard let command = matches.max(by: { $0.words.count < $1.words.count }) else {
            return unknown(words)
        }
        let name = command.words.joined(separator: " ")
        let rest = Array(words.dropFirst(command.words.count))
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(rest)
        } catch let error as OutputError where error.isBrokenPipe {
            return ExitCode.brokenPipe
        } catch let error as UsageError {
            printError("geoledger \(name): \(error)\nSee 'geoledger \(name) --help'.")
            return ExitCode.usage
        } catch {
            printError("geoledger \(name): error: \(Self.explained(error))")
            return ExitCode.failure
        }
    }

    /// SQLSTATEs of a statement naming a table, schema, column or function the database does not have: the
    /// database was never migrated, or not since this build added to the schema.
    static let missingSchemaStates: Set<String> = ["42P01", "3F000", "42703", "42883"]

    /// The message for an error that ended a command. One that says the database lacks part of the schema says
    /// what to do, whichever command met it.
    static func explained(_ error: any Error) -> String {
        let ingest = error as? IngestError
        let database = (error as? PostgresError) ?? ingest?.cause as? PostgresError
        if let database, database.isDiskFull {
            let committed = ingest.flatMap { $0.kind == .stopped ? $0 : nil }.map { stopped in
                stopped.committed.items == 0
                    ? "nothing before it was committed"
                    : "\(stopped.committed.itemCount) before it \(stopped.committed.items == 1 ? "was" : "were") committed "
                        + "(appended \(stopped.committed.appended))"
            }
            return "the database has no space left to write (\(database.message)): nothing of what failed was stored"
                + (committed.map { "; \($0)" } ?? "")
                + "; free space on the database's disk, then run the same command again (what was stored answers duplicate)"
        }
        guard let database, let state = database.sqlState, missingSchemaStates.contains(state) else {
            return "\(error)"
        }
        return "the database lacks Geoledger's tables, or has an older version of them (\(database.message)): "
            + "run `geoledger migrate`"
    }

    /// No command has these words: an unknown command, or a group (`show`, `db`) without its sub-command, which
    /// lists the group's commands. `geoledger GROUP --help` lists them on stdout and exits 0.
    private func unknown(_ words: [String]) -> Int32 {
        let group = commands.filter { $0.words.first == words[0] }
        if group.isEmpty {
            printError("geoledger: unknown command '\(words[0])'\nSee 'geoledger --help'.")
            return ExitCode.usage
        }
        let listing = """
            Usage: geoledger \(words[0]) SUBCOMMAND [OPTIONS]

            Subcommands:
            \(Self.lines(group))

            Run 'geoledger \(words[0]) SUBCOMMAND --help' for a subcommand's options.
            """
        if words.dropFirst().first.map({ ["--help", "-h"].contains($0) }) == true {
            print(listing)
            return ExitCode.ok
        }
        let problem = words.count > 1 ? "unknown subcommand '\(words[1])'" : "say which subcommand"
        printError("geoledger \(words[0]): \(problem)\n\n\(listing)")
        return ExitCode.usage
    }

    /// A line for each command: its words, then its summary in a column.
    private static func lines(_ commands: [Command]) -> String {
        let width = commands.map { $0.words.joined(separator: " ").count }.max() ?? 0
        return commands.map { command in
            let name = command.words.joined(separator: " ")
            return "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary
        }.joined(separator: "\n")
    }

    var overview: String {
        """
        geoledger: the location ledger of merchants and payment terminals.

        Usage: geoledger COMMAND [OPTIONS]
               geoledger --version

        Commands:
        \(Self.lines(commands))

        Connection: DATABASE_URL (a postgresql:// URL or key=value conninfo), or libpq's PG* variables;
        with neither, the private cluster under .data/ when it exists ('geoledger db start'). 'migrate'
        and 'replay' connect as the tables' owner instead: GEOLEDGER_OWNER_URL (see their --help).
        GEOLEDGER_CONNECT_RETRY=SECONDS keeps trying a database that cannot be reached yet (default 0).
        The projections follow the log: show, history, visits and report first make sure they hold every
        event already appended, projecting what is missing or waiting for the projector that does, up to
        GEOLEDGER_READ_TIMEOUT seconds (default 5); past it they exit 1 rather than answer without it.
        Run 'geoledger COMMAND --help' for a command's options and an example. Exit status: 0 ok, 1 failure,
        64 usage, 141 when the reader of the output went away (as after '| head').
        """
    }
}
