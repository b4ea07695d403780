import Foundation

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

/// Writes to standard error. Should that fail there is no one left to tell, and the exit status still says it.
func writeStandardError(_ text: String) {
    try? writeAll(Array(text.utf8), to: STDERR_FILENO, target: "standard error")
}
