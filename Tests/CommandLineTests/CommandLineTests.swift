import DatabaseTestSupport
import Foundation
import Testing

@Suite("geoledger: help, usage errors and exit codes")
struct HelpAndUsageTests {
    static let commands = [
        "db start", "db stop", "db status", "migrate", "ingest", "show merchant", "show terminal", "verify", "replay",
        "region classify", "datum convert", "serve", "token create", "token list", "token revoke",
    ]

    @Test("--help lists every command and exits 0")
    func overview() throws {
        let outcome = try GeoledgerProcess.run(["--help"])
        #expect(outcome.status == 0)
        for command in Self.commands {
            #expect(outcome.stdout.contains("  \(command) "), "\(command) missing from --help")
        }
        #expect(outcome.stdout.contains("DATABASE_URL"))
    }

    @Test("no command: the overview on stderr and exit 64")
    func noCommand() throws {
        let outcome = try GeoledgerProcess.run([])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("Usage: geoledger COMMAND"))
        #expect(outcome.stdout.isEmpty)
    }

    @Test("every command's --help explains it and exits 0", arguments: commands)
    func commandHelp(command: String) throws {
        let words = command.split(separator: " ").map(String.init)
        let outcome = try GeoledgerProcess.run(words + ["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("Usage: geoledger \(command)"))
    }

    /// Operators size connection limits by it.
    @Test("ingest --help says how many database connections an ingest holds")
    func ingestConnections() throws {
        let outcome = try GeoledgerProcess.run(["ingest", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("The projections follow the appends on a third connection"))
        #expect(outcome.stdout.contains("One connection decides each batch while another writes the batch"))
    }

    @Test("an unknown command is a usage error naming it")
    func unknownCommand() throws {
        let outcome = try GeoledgerProcess.run(["frobnicate"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("unknown command 'frobnicate'"))
    }

    /// The commands `geoledger --help` lists, as their words: every registered command, whoever added it.
    static func registeredCommands() throws -> [[String]] {
        let overview = try GeoledgerProcess.run(["--help"]).stdout
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Commands:"), "no Commands: section in --help")
        let listed = lines[(start + 1)...].prefix { !$0.isEmpty }
        return listed.map { line in
            let name = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            return name.split(separator: " ").map(String.init)
        }
    }

    @Test("every command --help lists has --help with its usage and an example, exit 0")
    func everyCommandHasAnExample() throws {
        let commands = try Self.registeredCommands()
        #expect(commands.count >= Self.commands.count)
        for words in commands {
            let name = words.joined(separator: " ")
            let outcome = try GeoledgerProcess.run(words + ["--help"])
            #expect(outcome.status == 0, "\(name)")
            #expect(outcome.stdout.contains("Usage: geoledger \(name)"), "\(name)")
            // A line "Example:", "Examples:" or "Example (...):", followed by an indented geoledger command line.
            let lines = outcome.stdout.split(separator: "\n").map(String.init)
            let heading = lines.firstIndex { $0.hasPrefix("Example") && $0.hasSuffix(":") }
            #expect(heading.map { $0 + 1 < lines.count && lines[$0 + 1].hasPrefix("  ") && lines[$0 + 1].contains("geoledger ") } == true,
                    "\(name) --help has no Example section")
        }
    }

    @Test("--version prints the version and the newest migration the build applies")
    func version() throws {
        let outcome = try GeoledgerProcess.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
        let line = outcome.stdout
        #expect(line.hasPrefix("geoledger ") && line.hasSuffix(".sql)\n"), "\(line)")
        let number = line.dropFirst("geoledger ".count).prefix { $0 != " " }
        #expect(number.split(separator: ".").count == 3 && number.split(separator: ".").allSatisfy { Int($0) != nil }, "\(line)")
        #expect(line.contains("(schema: 00"))
        #expect(try GeoledgerProcess.run(["--help"]).stdout.contains("geoledger --version"))
    }

    @Test("a group without its sub-command lists every sub-command with its summary and exits 64; with --help, exit 0")
    func incompleteGroup() throws {
        let commands = try Self.registeredCommands()
        let groups = Set(commands.filter { $0.count > 1 }.map { $0[0] })
        #expect(groups.isSuperset(of: ["show", "db", "region", "datum"]))
        for group in groups.sorted() {
            let members = commands.filter { $0.count > 1 && $0[0] == group }.map { $0.joined(separator: " ") }
            let outcome = try GeoledgerProcess.run([group])
            #expect(outcome.status == 64, "\(group)")
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr.contains("geoledger \(group): say which subcommand"), "\(group)")
            for member in members {
                #expect(outcome.stderr.contains("\n  \(member)  "), "\(member) missing from 'geoledger \(group)'")
            }
            let help = try GeoledgerProcess.run([group, "--help"])
            #expect(help.status == 0)
            #expect(members.allSatisfy { help.stdout.contains("\n  \($0)  ") }, "\(group) --help")
        }
        let wrong = try GeoledgerProcess.run(["show", "merchants"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("unknown subcommand 'merchants'"))
        #expect(wrong.stderr.contains("show merchant"))
    }

    @Test("an unknown option is a usage error naming it and pointing to --help")
    func unknownOption() throws {
        let outcome = try GeoledgerProcess.run(["verify", "--fast"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("unknown option --fast"))
        #expect(outcome.stderr.contains("geoledger verify --help"))
    }

    @Test("a bad option value names the option and the allowed values")
    func badChoice() throws {
        let outcome = try GeoledgerProcess.run(["show", "merchant", "M1", "--format", "xml"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--format must be one of table, json, ndjson, csv, geojson, not 'xml'"))
    }

    @Test("no reachable database: exit 1 with the server named, without its password, and what to do")
    func unreachableDatabase() throws {
        let outcome = try GeoledgerProcess.run(
            ["verify"], environment: ["DATABASE_URL": "postgresql://someone:s3cret@127.0.0.1:1/nowhere"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot connect"))
        #expect(outcome.stderr.contains("geoledger db start"))
        #expect(!outcome.stderr.contains("s3cret"))
    }
}

@Suite("geoledger region classify and datum convert")
struct RegionCommandTests {
    @Test("CSV in, CSV with region and near_boundary out; a header is allowed")
    func classify() throws {
        let outcome = try GeoledgerProcess.run(
            ["region", "classify"], input: "lat,lon\n31.2304,121.4737\n22.2855,114.1577\n22.1987,113.5439\n25.0330,121.5654\n35.6762,139.6503\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout == """
            lat,lon,region,near_boundary
            31.2304,121.4737,mainland,false
            22.2855,114.1577,hong_kong,false
            22.1987,113.5439,macau,false
            25.0330,121.5654,taiwan,false
            35.6762,139.6503,outside,false

            """)
    }

    @Test("--datum gcj02 converts before classifying: a Shenzhen point given in GCJ-02 stays in mainland")
    func classifyGCJ02() throws {
        let outcome = try GeoledgerProcess.run(["region", "classify", "--datum", "gcj02"], input: "22.5431,114.0579\n")
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasSuffix("22.5431,114.0579,mainland,false\n"))
    }

    @Test("a bad line is reported with its number; the others are still classified; exit 1")
    func badLine() throws {
        let outcome = try GeoledgerProcess.run(["region", "classify"], input: "31.2304,121.4737\nnot a point\n95,10\n")
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("31.2304,121.4737,mainland,false"))
        #expect(outcome.stderr.contains("line 2"))
        #expect(outcome.stderr.contains("line 3"))
    }

    @Test("datum convert: WGS-84 to GCJ-02 and back lands within 1e-7 degree")
    func convertRoundTrip() throws {
        let there = try GeoledgerProcess.run(["datum", "convert", "--from", "wgs84", "--to", "gcj02"], input: "lat,lon\n39.915,116.404\n")
        #expect(there.status == 0)
        let lines = there.stdout.split(separator: "\n")
        #expect(lines.first == "lat,lon")
        let back = try GeoledgerProcess.run(["datum", "convert", "--from", "gcj02", "--to", "wgs84"], input: String(lines[1]) + "\n")
        let values = back.stdout.split(separator: "\n")[0].split(separator: ",").compactMap { Double($0) }
        #expect(values.count == 2)
        #expect(abs(values[0] - 39.915) < 1e-7 && abs(values[1] - 116.404) < 1e-7)
    }

    @Test("datum convert without --to is a usage error")
    func convertNeedsBothDatums() throws {
        let outcome = try GeoledgerProcess.run(["datum", "convert", "--from", "wgs84"], input: "")
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--from and --to are required"))
    }
}

@Suite("geoledger migrate, verify and db", .serialized)
struct DatabaseCommandTests {
    @Test("every command that reads the schema, on a database never migrated: exit 1 and run `geoledger migrate`",
          arguments: [["show", "merchant", "M1"], ["show", "terminal", "T1"], ["verify"], ["ingest", "-"], ["replay", "--quiet"]])
    func unmigrated(command: [String]) throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let outcome = try GeoledgerProcess.run(
            command, environment: ["DATABASE_URL": database.url, "GEOLEDGER_OWNER_URL": database.url],
            input: #"{"eventId": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "type": "TerminalUnbound", "terminalId": "T1", "merchantId": "M1"}"# + "\n")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("geoledger \(command[0])"))
        #expect(outcome.stderr.contains("does not exist): run `geoledger migrate`"), "\(outcome.stderr)")
    }

    @Test("a database migrated by an older build (a projection column missing): the same advice")
    func olderSchema() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        defer { connection.close() }
        try connection.execute("ALTER TABLE projections.failures DROP COLUMN platform")
        let failure = #"{"eventId": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "type": "LocationFailed", "terminalId": "T1", "provider": "amap", "errorCode": 12, "capturedAt": "2026-11-29T10:00:00+08:00", "actor": {"os": "Android 13"}}"#
        let outcome = try GeoledgerProcess.run(["ingest", "-", "--quiet"], environment: ["DATABASE_URL": database.url], input: failure + "\n")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("run `geoledger migrate`"), "\(outcome.stderr)")
    }

    @Test("migrate applies, then says up to date; --status lists each migration as applied")
    func migrate() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let url = ["DATABASE_URL": Optional(database.url)]
        let first = try GeoledgerProcess.run(["migrate"], environment: url)
        #expect(first.status == 0)
        #expect(first.stdout.contains("applied 0001_event_store.sql"))
        let second = try GeoledgerProcess.run(["migrate"], environment: url)
        #expect(second.stdout == "up to date\n")
        let status = try GeoledgerProcess.run(["migrate", "--status"], environment: url)
        #expect(status.stdout.contains("0002_projections.sql  applied"))
    }

    @Test("verify: exit 0 on an intact log, exit 1 naming the altered event")
    func verify() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let url = ["DATABASE_URL": Optional(database.url)]
        let connection = try database.connect()
        try connection.execute("""
            INSERT INTO events (position, event_id, stream, version, type, data, metadata, recorded_at, hash, log_hash)
            VALUES (1, '0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40', 'merchant-M1', 0, 'T', '{}', '{}', now(), '\\x00', '\\x00');
            """)
        let broken = try GeoledgerProcess.run(["verify"], environment: url)
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("BROKEN event 0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40 at position 1"))
    }

    @Test("verify on an empty log is ok; its head is position 0 with 32 zero bytes")
    func verifyEmpty() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let outcome = try GeoledgerProcess.run(["verify"], environment: ["DATABASE_URL": database.url])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("every chain intact"))
        #expect(outcome.stdout.contains("\nhead=0:" + String(repeating: "0", count: 64) + "\n"))
    }

    @Test("db status of a folder with no cluster: exit 1 and how to start one")
    func statusWithoutCluster() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-cluster-\(UUID())").path
        let outcome = try GeoledgerProcess.run(["db", "status", "--dir", folder])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("not initialised"))
        #expect(outcome.stdout.contains("geoledger db start"))
    }
}

@Suite("geoledger: the executable")
struct ExecutableTests {
    /// jemalloc serves every allocation only when the dynamic linker loads it ahead of the C library.
    @Test("links jemalloc ahead of the C library, so that it replaces malloc")
    func linksJemalloc() throws {
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [GeoledgerProcess.binary]
        let output = Pipe()
        ldd.standardOutput = output
        try ldd.run()
        let listing = String(decoding: output.fileHandleForReading.readUntilEnd(), as: UTF8.self)
        ldd.waitUntilExit()
        let libraries = listing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let jemalloc = try #require(libraries.firstIndex { $0.hasPrefix("libjemalloc.so") }, "not linked: \(listing)")
        let libc = try #require(libraries.firstIndex { $0.hasPrefix("libc.so") })
        #expect(jemalloc < libc)
    }

    @Test("gives jemalloc its options: freed pages are kept for reuse")
    func allocatorOptions() throws {
        let outcome = try GeoledgerProcess.run(["--help"], environment: ["MALLOC_CONF": "confirm_conf:true"])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.contains("global variable malloc_conf): \"dirty_decay_ms:-1,muzzy_decay_ms:-1\""))
    }
}
