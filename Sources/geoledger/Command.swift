import Foundation
import Output

/// One command of the CLI, possibly with sub-words (`db start`, `show merchant`).
struct Command: Sendable {
    /// The words that select it, e.g. `["db", "start"]`.
    let words: [String]
    let summary: String
    /// The full `--help` text.
    let help: String
    /// Runs with the words after the command's own; returns the exit code.
    let run: @Sendable ([String]) throws -> Int32
}

enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    /// The reader of standard output went away: the status a shell shows for a process ended by SIGPIPE.
    static let brokenPipe: Int32 = 141
}

/// Writes a line to standard error.
func printError(_ message: String) {
    writeStandardError(message + "\n")
}

/// Flushes what `print` left in standard output's buffer. A write that failed, now or at an earlier flush, turns
/// `status` into a failure: 141 without a message when the reader went away, else 1 with the reason on stderr.
func flushStandardOutput(status: Int32) -> Int32 {
    do {
        try flushPrintedOutput()
        return status
    } catch let failure as OutputError where failure.isBrokenPipe {
        return ExitCode.brokenPipe
    } catch {
        printError("geoledger: \(error)")
        return ExitCode.failure
    }
}

/// The command line's one error type: a failure with a message for the user (exit 1). Usage errors (exit 64) are
/// `CommandLineArguments`' `UsageError`.
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
