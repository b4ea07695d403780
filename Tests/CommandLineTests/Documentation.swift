import DatabaseTestSupport
import Foundation
import Testing

/// The README and the documents under docs/, read as the tests that keep them honest need them: their shell blocks,
/// the commands in those blocks, the runbooks of operations.md, their links.
struct Documentation {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md and every docs/*.md, by path from the repository's root.
    static func all() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + docs).map { ($0, try text(of: $0)) }
    }

    static func text(of path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// A fenced block of shell commands, with the runbook name given just above it (`<!-- runbook: NAME -->`).
    struct ShellBlock {
        let runbook: String?
        let text: String

        /// The block's commands, a line each: continuation lines joined, comments and blank lines dropped.
        var commands: [String] {
            var joined: [String] = []
            var pending = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let code = Documentation.withoutComment(String(line))
                if code.hasSuffix("\\") {
                    pending += code.dropLast() + " "
                    continue
                }
                let whole = (pending + code).trimmingCharacters(in: .whitespaces)
                pending = ""
                if !whole.isEmpty { joined.append(whole) }
            }
            return joined
        }
    }

    /// The ```sh blocks of a document, in order.
    static func shellBlocks(in text: String) -> [ShellBlock] {
        var blocks: [ShellBlock] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        var previous = ""
        while let line = lines.popFirst() {
            if line == "```sh" {
                var body: [String] = []
                while let inner = lines.popFirst(), inner != "```" { body.append(inner) }
                let runbook = previous.firstMatch(of: /<!-- runbook: ([a-z-]+) -->/).map { String($0.1) }
                blocks.append(ShellBlock(runbook: runbook, text: body.joined(separator: "\n")))
            }
            if !line.isEmpty { previous = line }
        }
        return blocks
    }

    /// The runbook named `name` in docs/operations.md.
    static func runbook(_ name: String) throws -> ShellBlock {
        let blocks = shellBlocks(in: try text(of: "docs/operations.md")).filter { $0.runbook == name }
        #expect(blocks.count == 1, "docs/operations.md has \(blocks.count) runbooks named \(name)")
        return try #require(blocks.first)
    }

    /// A line without its shell comment: from a `#` after a space, outside quotes.
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                return String(line.prefix(offset)).trimmingCharacters(in: .whitespaces)
            }
            previous = character
        }
        return line
    }

    /// Each `geoledger ...` invocation in a command line, as its words after the program: in each part between `|`,
    /// `&&`, `||` and `;`, after variable assignments, and inside `$(...)`. The program is `geoledger` or a path
    /// ending in `/geoledger`.
    static func geoledgerInvocations(in command: String) -> [[String]] {
        let all = words(command)
        var found: [[String]] = []
        for word in all where word.contains("$(") {
            guard let start = word.range(of: "$("), let end = word.range(of: ")", options: .backwards), start.upperBound <= end.lowerBound
            else { continue }
            found += geoledgerInvocations(in: String(word[start.upperBound..<end.lowerBound]))
        }
        for segment in all.split(whereSeparator: { ["|", "||", "&&", ";"].contains($0) }) {
            let words = segment.drop { $0.first?.isUppercase == true && $0.contains("=") }
            guard let program = words.first, program == "geoledger" || program.hasSuffix("/geoledger") else { continue }
            found.append(Array(words.dropFirst()))
        }
        return found
    }

    /// Shell words, roughly: split on spaces outside quotes and `$(...)`, quotes removed.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var depth = 0
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "(" && current.hasSuffix("$") {
                depth += 1
                current.append(character)
            } else if character == ")" && depth > 0 {
                depth -= 1
                current.append(character)
            } else if character == " " && depth == 0 {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The commands `geoledger --help` lists (`db start`, `show merchant`, ...).
    static func commands() throws -> [String] {
        let overview = try GeoledgerProcess.run(["--help"]).stdout
        let listed = overview.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        return listed.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\s\s([a-z]+(?: [a-z]+)?)\s\s/).map { String($0.1) }
        }
    }

    /// The slug GitHub gives a heading, for `#anchor` links.
    static func slug(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    /// Runs `script` with /bin/sh -e, in the repository's root unless told otherwise.
    static func run(
        _ script: String, environment: [String: String?], directory: String = root.path
    ) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(["-e", "-c", script], environment: environment, executable: "/bin/sh", directory: directory)
    }

    /// PATH with the geoledger under test first, as `export PATH=".../.build/release:$PATH"` has it.
    static var pathWithGeoledger: String {
        URL(fileURLWithPath: GeoledgerProcess.binary).deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }
}
