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
}

/// Writes to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
