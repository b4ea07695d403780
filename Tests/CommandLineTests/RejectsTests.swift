import DatabaseTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ingest --rejects`: written in place, only once the database answered, never over the input.
@Suite("geoledger ingest --rejects", .serialized)
struct RejectsTests {
    /// One item that is always invalid, so that every run has exactly one reject.
    static let input = #"{"type": "nothing"}"# + "\n"
    static let unreachable = "postgresql://nobody@127.0.0.1:1/nowhere"

    /// A fresh folder holding `input.ndjson`, removed afterwards.
    func withFolder(_ body: (_ folder: String, _ input: String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rejects-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/input.ndjson"
        try write(Self.input, to: input)
        try body(folder, input)
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func contents(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    func status(_ path: String, followingLinks: Bool = true) throws -> stat {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return info
    }

    func isReject(_ line: Substring) throws -> Bool {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["line"] as? Int == 1 && object?["status"] as? String == "invalid"
    }

    @Test("an existing rejects file is truncated and written in place: same inode, new lines, no other file")
    func writtenInPlace() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        try withFolder { folder, input in
            let rejects = folder + "/rejects.ndjson"
            try write(String(repeating: "an older run's line\n", count: 1000), to: rejects)
            let before = try status(rejects)
            let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", rejects, "--quiet"], environment: ["DATABASE_URL": database.url])
            #expect(outcome.status == 1, "\(outcome.stderr)")
            #expect(try status(rejects).st_ino == before.st_ino)
            let lines = try contents(rejects).split(separator: "\n")
            #expect(lines.count == 1)
            #expect(try lines.allSatisfy(isReject))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["input.ndjson", "rejects.ndjson"])
        }
    }

    @Test("a new rejects file is created with mode 0644 at most")
    func newFileMode() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        try withFolder { folder, input in
            let rejects = folder + "/new.ndjson"
            let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", rejects, "--quiet"], environment: ["DATABASE_URL": database.url])
            #expect(outcome.status == 1, "\(outcome.stderr)")
            let mode = try status(rejects).st_mode & 0o7777
            #expect(mode & ~0o644 == 0 && mode & 0o600 == 0o600, "mode \(String(mode, radix: 8))")
            #expect(try contents(rejects).split(separator: "\n").allSatisfy(isReject))
        }
    }

    @Test("a symlink stays a symlink: its target receives the rejects")
    func symlink() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        try withFolder { folder, input in
            let target = folder + "/target.ndjson", link = folder + "/link.ndjson"
            try write("old\n", to: target)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", link, "--quiet"], environment: ["DATABASE_URL": database.url])
            #expect(outcome.status == 1, "\(outcome.stderr)")
            #expect(try status(link, followingLinks: false).st_mode & S_IFMT == S_IFLNK)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
            #expect(try contents(target).split(separator: "\n").allSatisfy(isReject))
        }
    }

    /// As root, a private copy of /dev/full made with mknod, so that a regression cannot replace the machine's own;
    /// elsewhere /dev/full itself, which only root could replace.
    @Test("a full device: exit 1 naming the path and the error, no crash, and the device node is still one")
    func fullDevice() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        try withFolder { folder, input in
            let privateNode = folder + "/full"
            let device = mknod(privateNode, S_IFCHR | 0o666, try status("/dev/full").st_rdev) == 0 ? privateNode : "/dev/full"
            let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", device, "--quiet"], environment: ["DATABASE_URL": database.url])
            #expect(outcome.status == 1)
            #expect(outcome.stderr.contains("cannot write \(device): No space left on device"), "\(outcome.stderr)")
            if getuid() == 0 {
                #expect(try status(device, followingLinks: false).st_mode & S_IFMT == S_IFCHR)
            }
        }
    }

    @Test("--rejects - writes the rejects to stdout, which then holds only NDJSON; the summary goes to stderr")
    func standardOutput() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        try withFolder { folder, input in
            let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", "-", "--quiet"], environment: ["DATABASE_URL": database.url], directory: folder)
            #expect(outcome.status == 1, "\(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(try lines.allSatisfy(isReject), "\(outcome.stdout)")
            #expect(outcome.stderr.contains("appended 0, duplicate 0, conflict 0, invalid 1"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["input.ndjson"])
        }
    }

    @Test("an unreachable database leaves an existing rejects file untouched and creates none")
    func untouchedWithoutDatabase() throws {
        try withFolder { folder, input in
            let existing = folder + "/rejects.ndjson", absent = folder + "/absent.ndjson"
            try write("an older run's line\n", to: existing)
            for rejects in [existing, absent] {
                let outcome = try GeoledgerProcess.run(["ingest", input, "--rejects", rejects, "--quiet"], environment: ["DATABASE_URL": Self.unreachable])
                #expect(outcome.status == 1)
                #expect(outcome.stderr.contains("cannot connect"))
            }
            #expect(try contents(existing) == "an older run's line\n")
            #expect(!FileManager.default.fileExists(atPath: absent))
        }
    }

    enum InputAgain: String, CaseIterable {
        case samePath, otherPath, symlink, hardLink, standardInput
    }

    @Test("--rejects naming the input, by any path, is a usage error before anything is opened for writing", arguments: InputAgain.allCases)
    func namesTheInput(how: InputAgain) throws {
        try withFolder { folder, input in
            let before = try status(input)
            var arguments = ["ingest", input]
            var rejects = input
            switch how {
            case .samePath: break
            case .otherPath: rejects = folder + "/../" + URL(fileURLWithPath: folder).lastPathComponent + "/./input.ndjson"
            case .symlink:
                rejects = folder + "/link.ndjson"
                try FileManager.default.createSymbolicLink(atPath: rejects, withDestinationPath: input)
            case .hardLink:
                rejects = folder + "/hard.ndjson"
                try FileManager.default.linkItem(atPath: input, toPath: rejects)
            case .standardInput: arguments = ["ingest", "-"]
            }
            // The database is out of reach: the refusal must come before any connection is tried.
            let outcome = try run(arguments + ["--rejects", rejects, "--quiet"], input: how == .standardInput ? input : nil)
            #expect(outcome.status == 64, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("--rejects names the input"), "\(outcome.stderr)")
            #expect(try contents(input) == Self.input)
            #expect(try status(input).st_ino == before.st_ino)
        }
    }

    /// Runs geoledger against the unreachable database, its standard input the file at `input` when given.
    private func run(_ arguments: [String], input: String?) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["DATABASE_URL": Self.unreachable]) { $1 }
        process.standardInput = try input.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) } ?? FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readUntilEnd()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: message, as: UTF8.self))
    }
}
