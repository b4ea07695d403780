import Foundation

/// Runs the built `geoledger` binary as an operator would, and collects what it printed.
public struct GeoledgerProcess {
    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// `GEOLEDGER_BIN` (set by `make test`), else the debug build of this package.
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["GEOLEDGER_BIN"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/geoledger").path
    }

    /// `geoledger-bench`, next to ``binary``.
    public static var benchBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("geoledger-bench").path
    }

    /// - Parameters:
    ///   - environment: added to (or, with a nil value, removed from) this process's environment.
    ///   - input: written to its standard input.
    ///   - executable: the program to run, ``binary`` unless given.
    ///   - directory: its working directory, this process's unless given.
    public static func run(
        _ arguments: [String], environment: [String: String?] = [:], input: String? = nil, executable: String = binary,
        directory: String? = nil
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            // Written from another thread so a large input cannot deadlock against a full output pipe.
            let writer = stdin.fileHandleForWriting
            let bytes = Data(input.utf8)
            Thread.detachNewThread {
                writer.write(bytes)
                try? writer.close()
            }
        }
        let errors = DispatchQueue(label: "stderr")
        nonisolated(unsafe) var errorBytes = Data()
        let group = DispatchGroup()
        errors.async(group: group) { errorBytes = stderr.fileHandleForReading.readDataToEndOfFile() }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: errorBytes, as: UTF8.self))
    }
}
