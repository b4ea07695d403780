import DatabaseTestSupport
import Foundation
import Testing

/// What `region classify` and `datum convert` do with input that is not CSV points.
@Suite("geoledger region classify and datum convert: input that is not points")
struct PointInputTests {
    static let commands = [["region", "classify"], ["datum", "convert", "--from", "wgs84", "--to", "gcj02"]]

    /// Runs a command with standard input read from `path`; gives up after 20 s.
    func run(_ arguments: [String], input path: String) throws -> (status: Int32?, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("points-out-\(UUID())").path
        let errors = output + ".err"
        FileManager.default.createFile(atPath: output, contents: nil)
        FileManager.default.createFile(atPath: errors, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let ended = !process.isRunning
        if !ended { process.terminate() }
        process.waitUntilExit()
        return (ended ? process.terminationStatus : nil, try String(contentsOfFile: output, encoding: .utf8),
                try String(contentsOfFile: errors, encoding: .utf8))
    }

    @Test("/dev/zero, a line without end: exit 1 at once naming the line, not memory without bound", arguments: commands)
    func endlessLine(command: [String]) throws {
        let outcome = try run(command, input: "/dev/zero")
        #expect(outcome.status == 1, "still running after 20 s, or another status")
        #expect(outcome.stderr.contains("line 1 is longer than 4096 bytes: expected \"lat,lon\""), "\(outcome.stderr)")
    }

    @Test("the points before a line too long are written before the command stops")
    func pointsBeforeTheLongLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("long-line-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(("31.2304,121.4737\n" + String(repeating: "9", count: 5000) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let outcome = try run(["region", "classify"], input: path)
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "lat,lon,region,near_boundary\n31.2304,121.4737,mainland,false\n")
        #expect(outcome.stderr.contains("line 2 is longer than 4096 bytes"), "\(outcome.stderr)")
    }

    @Test("a directory as input: exit 1 with the reason, not an empty success")
    func directory() throws {
        let outcome = try run(["region", "classify"], input: "/tmp")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot read standard input: Is a directory"), "\(outcome.stderr)")
    }
}
