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
        errors.async(group: group) { errorBytes = stderr.fileHandleForReading.readUntilEnd() }
        let out = stdout.fileHandleForReading.readUntilEnd()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: errorBytes, as: UTF8.self))
    }
}

extension GeoledgerProcess {
    /// How a shell command line ended, and the most memory any of its processes held.
    public struct Measured: Sendable {
        /// The exit status of the command line; 124 when it was stopped at the time limit.
        public let status: Int32
        /// The peak resident set size of the largest process it ran, in bytes.
        public let peakResidentBytes: Int
        public let seconds: Double
        public var timedOut: Bool { status == 124 }
    }

    /// Runs `script` with `/bin/sh -c`, with `$GEOLEDGER` naming the binary, stopping it after `seconds`, and reads
    /// the peak memory of its processes from GNU time.
    ///
    /// GNU time, a small process, starts the shell with `fork`: a process started straight from this one would
    /// count this process's own memory as its peak (Linux carries the larger of the two across `exec`).
    /// - Parameter environment: added to this process's environment.
    public static func measure(_ script: String, environment: [String: String] = [:], timeLimit seconds: Int) throws -> Measured {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            throw MeasureFailure(description: "measuring peak memory needs GNU time at \(time) (Debian package time)")
        }
        let peakFile = FileManager.default.temporaryDirectory.appendingPathComponent("peak-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: peakFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["--kill-after=5", String(seconds), time, "-q", "-f", "%M", "-o", peakFile, "/bin/sh", "-c", script]
        var merged = ProcessInfo.processInfo.environment
        merged["GEOLEDGER"] = binary
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - started
        let status = process.terminationStatus
        let report = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
        guard let kilobytes = report.split(separator: "\n").last.flatMap({ Int($0) }) else {
            if status == 124 { return Measured(status: status, peakResidentBytes: 0, seconds: elapsed.seconds) }
            throw MeasureFailure(description: "GNU time reported no peak memory for: \(script)\n\(report)")
        }
        return Measured(status: status, peakResidentBytes: kilobytes * 1024, seconds: elapsed.seconds)
    }

    public struct MeasureFailure: Error, CustomStringConvertible {
        public let description: String
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
