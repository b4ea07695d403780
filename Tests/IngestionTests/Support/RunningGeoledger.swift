import DatabaseTestSupport
import Foundation
import Synchronization
import Testing

/// The built `geoledger` binary, started with a standard input the test writes as it goes: for tests that act on the
/// database, or on the process, while a command runs.
final class RunningGeoledger {
    private let process: Process
    private let input: FileHandle
    private let finished = DispatchSemaphore(value: 0)
    private let collected = DispatchGroup()
    private let output = Output()

    private final class Output: Sendable {
        let bytes = Mutex((stdout: Data(), stderr: Data()))
    }

    init(_ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: GeoledgerProcess.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = self.finished
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let output = self.output
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            let reader = pipe.fileHandleForReading
            DispatchQueue.global().async(group: collected) {
                let bytes = reader.readUntilEnd()
                output.bytes.withLock { if isError { $0.stderr = bytes } else { $0.stdout = bytes } }
            }
        }
    }

    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    var pid: Int32 { process.processIdentifier }

    func write(_ lines: [String]) {
        input.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    }

    func closeInput() {
        try? input.close()
    }

    /// Waits `limit` seconds at most for the process to end. Past that, records an issue and calls `whenStuck`, which
    /// should let it end; should it still run 30 s later, kills it.
    func waitForExit(limit: Double, whenStuck: () -> Void = {}) -> Outcome {
        if finished.wait(timeout: .now() + limit) == .timedOut {
            Issue.record("geoledger \(process.arguments ?? []) still running after \(limit) s")
            whenStuck()
            if finished.wait(timeout: .now() + 30) == .timedOut {
                process.terminate()
                finished.wait()
            }
        }
        collected.wait()
        return output.bytes.withLock { output in
            Outcome(
                status: process.terminationStatus, stdout: String(decoding: output.stdout, as: UTF8.self),
                stderr: String(decoding: output.stderr, as: UTF8.self))
        }
    }
}

/// Whether `condition` held within `limit` seconds, checked every 20 ms.
func eventually(within limit: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(limit)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}
