import CommandLineArguments
import Foundation
import Output

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
        let matches = commands.filter { words.starts(with: $0.words) }
        guard let command = matches.max(by: { $0.words.count < $1.words.count }) else {
            return unknown(words)
        }
        let rest = Array(words.dropFirst(command.words.count))
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help)
            return ExitCode.ok
        }
        do {
            return try command.run(rest)
        } catch let error as WriteFailed where error.isBrokenPipe {
            return ExitCode.brokenPipe
        } catch let error as UsageError {
            printError("geoledger \(command.words.joined(separator: " ")): \(error)\nSee 'geoledger \(command.words.joined(separator: " ")) --help'.")
            return ExitCode.usage
        } catch {
            printError("geoledger \(command.words.joined(separator: " ")): error: \(error)")
            return ExitCode.failure
        }
    }

    private func unknown(_ words: [String]) -> Int32 {
        let group = commands.filter { $0.words.first == words[0] }
        if group.isEmpty {
            printError("geoledger: unknown command '\(words[0])'\nSee 'geoledger --help'.")
        } else {
            let choices = group.map { $0.words.joined(separator: " ") }.joined(separator: ", ")
            printError("geoledger \(words[0]): say which: \(choices)")
        }
        return ExitCode.usage
    }

    var overview: String {
        let width = commands.map { $0.words.joined(separator: " ").count }.max() ?? 0
        let lines = commands.map { command in
            let name = command.words.joined(separator: " ")
            return "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.summary
        }
        return """
            geoledger: the location ledger of merchants and payment terminals.

            Usage: geoledger COMMAND [OPTIONS]

            Commands:
            \(lines.joined(separator: "\n"))

            Connection: DATABASE_URL (a postgresql:// URL or key=value conninfo), or libpq's PG* variables;
            with neither, the private cluster under .data/ when it exists ('geoledger db start'). 'migrate'
            and 'replay' connect as the tables' owner instead: GEOLEDGER_OWNER_URL (see their --help).
            GEOLEDGER_CONNECT_RETRY=SECONDS keeps trying a database that cannot be reached yet (default 0).
            Run 'geoledger COMMAND --help' for a command's options. Exit status: 0 ok, 1 failure, 64 usage,
            141 when the reader of the output went away (as after '| head').
            """
    }
}
