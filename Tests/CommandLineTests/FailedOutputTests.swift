import DatabaseTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A write to standard output that fails is an error; a reader that went away ends the command quietly.
@Suite("geoledger: failed writes to standard output")
struct FailedOutputTests {
    static let streamingCommands = [["region", "classify"], ["datum", "convert", "--from", "wgs84", "--to", "gcj02"]]

    /// A fresh file of `lines` points, removed afterwards.
    func withInput(lines: Int, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("points-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let line = Array("22.5431,114.0579\n".utf8)
        var bytes = Array("lat,lon\n".utf8)
        bytes.reserveCapacity(bytes.count + line.count * lines)
        for _ in 0..<lines { bytes += line }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try body(path)
    }

    @Test("stdout on a full device: exit 1 and the error on stderr", arguments: streamingCommands + [["--help"]])
    func fullDevice(command: [String]) throws {
        try withInput(lines: 3) { input in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
            process.arguments = command
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readUntilEnd(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 1)
            #expect(message.contains("cannot write standard output: No space left on device"), "\(message)")
        }
    }

    @Test("a closed pipe ends the command at once, quietly, with status 141, before it reads its whole input", arguments: streamingCommands)
    func closedPipe(command: [String]) throws {
        try withInput(lines: 1_000_000) { input in
            let inputHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
            let size = try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int ?? 0
            let process = Process()
            process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
            process.arguments = command
            process.standardInput = inputHandle
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // As `| head -1` does: read the first line, then go away.
            var received = Data()
            while !received.contains(0x0A) {
                let more = output.fileHandleForReading.readAvailable()
                if more.isEmpty { break }
                received += more
            }
            try output.fileHandleForReading.close()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            let ended = !process.isRunning
            if !ended { process.terminate() }
            let message = String(decoding: errors.fileHandleForReading.readUntilEnd(), as: UTF8.self)
            process.waitUntilExit()
            #expect(ended, "still running 20 s after its reader went away")
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 141)
            #expect(message.isEmpty, "\(message)")
            // The input is a file whose offset the command shares: how far it got is how much it read.
            let consumed = Int(lseek(inputHandle.fileDescriptor, 0, SEEK_CUR))
            #expect(consumed < size / 10, "read \(consumed) of \(size) bytes")
        }
    }

    @Test("stderr on a full device: the exit status still tells, and nothing crashes")
    func fullStandardError() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
        process.arguments = ["frobnicate"]
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 64)
    }
}
