import DatabaseTestSupport
import Foundation
import Testing

/// The README and docs/ say only what is so: the commands they show exist with the options they show, the command
/// line's reference matches each command's --help, the links lead somewhere, and the README's tour runs as written.
@Suite("The README and docs/")
struct DocumentationTests {
    @Test("the README is a page: at most 150 lines")
    func readmeIsShort() throws {
        let lines = try Documentation.text(of: "README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 150, "README.md has \(lines) lines")
    }

    @Test("every geoledger command shown names a command the binary has, with options its --help lists")
    func commandsShownExist() throws {
        let commands = try Documentation.commands()
        #expect(commands.count >= 20, "\(commands)")
        var helps: [String: String] = [:]
        var checked = 0
        for (path, text) in try Documentation.all() {
            for block in Documentation.shellBlocks(in: text) {
                for line in block.commands {
                    for words in Documentation.geoledgerInvocations(in: line) {
                        if words.first == "--version" || words.first == "--help" { continue }
                        let command = commands.filter { command in
                            let parts = command.split(separator: " ").map(String.init)
                            return Array(words.prefix(parts.count)) == parts
                        }.max { $0.count < $1.count }
                        guard let command else {
                            Issue.record("\(path): '\(line)' names no command of geoledger --help")
                            continue
                        }
                        if helps[command] == nil {
                            helps[command] = try GeoledgerProcess.run(command.split(separator: " ").map(String.init) + ["--help"]).stdout
                        }
                        for option in words where option.hasPrefix("--") {
                            let name = String(option.prefix { $0 != "=" })
                            #expect(helps[command]!.contains(name), "\(path): '\(line)': \(command) --help has no \(name)")
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked >= 20, "only \(checked) geoledger commands found in the documents")
    }

    @Test("every make target shown is one the Makefile has")
    func makeTargetsExist() throws {
        let makefile = try Documentation.text(of: "Makefile")
        for (path, text) in try Documentation.all() {
            for block in Documentation.shellBlocks(in: text) {
                for line in block.commands where line.hasPrefix("make ") {
                    let target = Documentation.words(line)[1]
                    #expect(makefile.contains("\n\(target):"), "\(path): '\(line)': no target \(target)")
                }
            }
        }
    }

    @Test("docs/cli.md gives each command's usage as its --help does, and every option its --help lists")
    func cliReferenceMatchesHelp() throws {
        let reference = try Documentation.text(of: "docs/cli.md")
        for command in try Documentation.commands() {
            let help = try GeoledgerProcess.run(command.split(separator: " ").map(String.init) + ["--help"]).stdout
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(lines.firstIndex { $0.hasPrefix("Usage:") }, "\(command) --help has no Usage line")
            let usage = lines[start...].prefix { $0.hasPrefix("Usage:") || $0.hasPrefix(" ") }.joined(separator: "\n")
            guard let found = reference.range(of: "```\n" + usage + "\n```") else {
                Issue.record("docs/cli.md lacks the usage of \(command):\n\(usage)")
                continue
            }
            // The command's section: from its usage to the next heading.
            let section = reference[found.lowerBound...].components(separatedBy: "\n#").first ?? ""
            let options = Set(help.matches(of: /(?m)^ {2}(--[a-z-]+)/).map { String($0.1) })
            #expect(!options.isEmpty || !help.contains("Options"), "\(command): no options read from its --help")
            for option in options {
                #expect(section.contains(option), "docs/cli.md, \(command): \(option) is missing")
            }
        }
    }

    @Test("every link between the documents leads to a file that exists, and to a heading it has")
    func linksLeadSomewhere() throws {
        for (path, text) in try Documentation.all() {
            let folder = path.split(separator: "/").dropLast().map(String.init)
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.1)
                if target.hasPrefix("http://") || target.hasPrefix("https://") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                // The target's path from the repository's root, `..` resolved.
                var components = parts[0].isEmpty ? path.split(separator: "/").map(String.init) : folder
                if !parts[0].isEmpty {
                    for component in parts[0].split(separator: "/").map(String.init) {
                        if component == ".." { _ = components.popLast() } else if component != "." { components.append(component) }
                    }
                }
                let relative = components.joined(separator: "/")
                let linked = Documentation.root.appendingPathComponent(relative).path
                guard FileManager.default.fileExists(atPath: linked) else {
                    Issue.record("\(path): \(target) leads to \(relative), which does not exist")
                    continue
                }
                if parts.count == 2 {
                    let headings = try String(contentsOfFile: linked, encoding: .utf8).split(separator: "\n")
                        .filter { $0.hasPrefix("#") }.map { Documentation.slug($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) }
                    #expect(headings.contains(parts[1]), "\(path): \(target): \(relative) has no heading #\(parts[1])")
                }
            }
        }
    }

    @Test("the README's tour runs as written: make run's script serving, then every command of the second terminal")
    func readmeTour() throws {
        let readme = try Documentation.text(of: "README.md")
        let blocks = Documentation.shellBlocks(in: readme)
        #expect(blocks.contains { $0.commands == ["make run"] }, "the tour starts with make run")
        let tour = try #require(blocks.first { $0.text.contains("geoledger ingest examples/fixes.ndjson") }, "no tour block")

        let database = try TestDatabase.createWithRoles(migrated: false)
        defer { database.drop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-tour-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = try RunScriptTests.freePort()
        let application = database.url(as: database.roles!.application)
        let served = try RunningScript(environment: [
            "GEOLEDGER": GeoledgerProcess.binary, "GEOLEDGER_DATA_DIR": folder, "GEOLEDGER_LISTEN": "127.0.0.1:\(port)",
            "DATABASE_URL": application, "GEOLEDGER_OWNER_URL": database.url(as: database.roles!.owner),
        ])
        defer { _ = try? served.stop() }
        _ = try served.waitFor("listening on")

        // What differs from a newcomer's machine: the binary under test for the release build, this test's cluster
        // for the one under .data/, and the port the server got.
        let script = tour.text
            .replacingOccurrences(of: "$PWD/.build/release", with: URL(fileURLWithPath: GeoledgerProcess.binary).deletingLastPathComponent().path)
            .replacingOccurrences(of: ".data/admin-token", with: folder + "/admin-token")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        let outcome = try Documentation.run(script, environment: ["DATABASE_URL": application, "GEOLEDGER_OWNER_URL": nil])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("appended 500, duplicate 0, conflict 0, invalid 0"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("merchant         M0000021"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("T00000021") || outcome.stdout.contains("TerminalLocated"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("ok: 500 events"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains(#""duplicate":500"#), "the second POST stored nothing new: \(outcome.stdout)")
        #expect(outcome.stdout.contains(#""merchantId":"M0000021""#), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("terminalId,"), "the drift report as CSV: \(outcome.stdout)")
    }
}
