import Foundation
import PostgresTestSupport
import Testing

/// The README and the documents under docs/, read as the tests that keep them honest need them: their shell blocks,
/// the commands in those blocks, the runbooks of operations.md, their links.
public struct Documentation {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// README.md and every docs/*.md, by path from the repository's root.
    public static func all() throws -> [(path: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + docs).map { ($0, try text(of: $0)) }
    }

    public static func text(of path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// A fenced block of shell commands, with the runbook name given just above it (`<!-- runbook: NAME -->`).
    public struct ShellBlock: Sendable {
        public let runbook: String?
        public let text: String

        /// The block's commands, a line each: continuation lines joined, comments and blank lines dropped.
        public var commands: [String] {
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
    public static func shellBlocks(in text: String) -> [ShellBlock] {
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
    public static func runbook(_ name: String) throws -> ShellBlock {
        let blocks = shellBlocks(in: try text(of: "docs/operations.md")).filter { $0.runbook == name }
        #expect(blocks.count == 1, "docs/operations.md has \(blocks.count) runbooks named \(name)")
        return try #require(blocks.first)
    }

    /// A line without its shell comment: from a `#` after a space, outside quotes.
    public static func withoutComment(_ line: String) -> String {
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
    public static func geoledgerInvocations(in command: String) -> [[String]] {
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
    public static func words(_ line: String) -> [String] {
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
    public static func commands() throws -> [String] {
        let overview = try GeoledgerProcess.run(["--help"]).stdout
        let listed = overview.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        return listed.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\s\s([a-z]+(?: [a-z]+)?)\s\s/).map { String($0.1) }
        }
    }

    /// The slug GitHub gives a heading, for `#anchor` links.
    public static func slug(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    /// Runs `script` with /bin/sh -e, in the repository's root unless told otherwise.
    public static func run(
        _ script: String, environment: [String: String?], directory: String = root.path
    ) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(["-e", "-c", script], environment: environment, executable: "/bin/sh", directory: directory)
    }

    /// PATH with the geoledger under test first, as `export PATH=".../.build/release:$PATH"` has it.
    public static var pathWithGeoledger: String {
        URL(fileURLWithPath: GeoledgerProcess.binary).deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }
}

/// Fresh names for the roles and the database that operations.md's runbooks call `geoledger_owner`,
/// `geoledger_app` and `geoledger`, on the test server, so that a runbook runs as written beside other tests.
public struct RunbookNames: Sendable {
    public let owner = TestDatabase.uniqueName("ops_owner")
    public let application = TestDatabase.uniqueName("ops_app")
    public let database = TestDatabase.uniqueName("ops")

    public init() {}

    /// The runbook with the fresh names in place of the documented ones.
    public func apply(to script: String) -> String {
        script.replacingOccurrences(of: "geoledger_owner", with: owner)
            .replacingOccurrences(of: "geoledger_app", with: application)
            .replacingOccurrences(of: "DATABASE geoledger ", with: "DATABASE \(database) ")
    }

    /// The URL of the database as `role`.
    public func url(as role: String) -> String {
        let server = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        guard var components = URLComponents(string: server), components.scheme?.hasPrefix("postgres") == true else {
            return server + " dbname=\(database) user=\(role)"
        }
        components.path = "/" + database
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "user" } + [URLQueryItem(name: "user", value: role)]
        return components.string ?? server
    }

    /// The variables the runbooks name: the server's superuser, the application's and the owner's URLs, and PATH
    /// with the geoledger under test first.
    public var environment: [String: String?] {
        [
            "SUPERUSER_URL": ProcessInfo.processInfo.environment["DATABASE_URL"], "DATABASE_URL": url(as: application),
            "GEOLEDGER_OWNER_URL": url(as: owner), "PATH": Documentation.pathWithGeoledger,
        ]
    }

    /// Runs the runbook `name` with these names and variables, and `extra` on top, in `directory`.
    public func run(_ name: String, _ extra: [String: String?] = [:], in directory: String = Documentation.root.path)
        throws -> GeoledgerProcess.Outcome
    {
        let script = apply(to: try Documentation.runbook(name).text)
        return try Documentation.run(script, environment: environment.merging(extra) { $1 }, directory: directory)
    }

    /// A populated database, as a server run with least privilege has it: the roles runbook, then the 500 events of
    /// examples/fixes.ndjson ingested as the application.
    public func populate() throws {
        let roles = try run("roles")
        try #require(roles.status == 0, "\(roles.stderr)")
        #expect(roles.stdout.contains("granted \(application) the application's privileges"), "\(roles.stdout)")
        let ingest = try GeoledgerProcess.run(
            ["ingest", Documentation.root.appendingPathComponent("examples/fixes.ndjson").path],
            environment: ["DATABASE_URL": url(as: application)])
        try #require(ingest.status == 0, "\(ingest.stderr)")
    }

    /// Drops the database and the roles, as the server's superuser.
    public func drop() {
        _ = try? GeoledgerProcess.run(
            ["-c", "psql \"$SUPERUSER_URL\" -q -c 'DROP DATABASE IF EXISTS \(database) WITH (FORCE)' "
                + "-c 'DROP ROLE IF EXISTS \(application)' -c 'DROP ROLE IF EXISTS \(owner)'"],
            environment: ["SUPERUSER_URL": ProcessInfo.processInfo.environment["DATABASE_URL"]], executable: "/bin/sh")
    }
}
