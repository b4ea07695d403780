import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import RawHTTPClient
import Testing

/// What `geoledger serve` holds while it answers a large batch: a small multiple of the body, not a parsed tree of
/// every item at once.
@Suite("geoledger serve's memory under a batch of junk items")
struct ServeMemoryTests {
    @Test("a 16 MB batch of junk items such as {\"a\":[1,1,...]}, each refused invalid, raises serve's peak resident memory by well under 150 MB (parsed all ahead, it took some 280 MB)")
    func junkBatchPeakMemory() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let server = try ServeProcess(url: url)

            // Each item is under the 64 KiB item limit, so each is read and parsed before it is refused.
            let item = #"{"a":["# + Array(repeating: "1", count: 30_000).joined(separator: ",") + "]}"
            let lines = Array(repeating: item, count: 16_000_000 / (item.utf8.count + 1))
            let before = try Self.peakResidentBytes(of: server.pid)
            // A debug build on a loaded machine takes its time over 8 million numbers.
            let response = try ServeProcess.post(lines, token: token, port: server.port, timeout: .seconds(180))
            let after = try Self.peakResidentBytes(of: server.pid)

            #expect(response.status == 200, "\(response.text.prefix(500))")
            #expect(try response.statuses == Array(repeating: "invalid", count: lines.count))
            let grown = after - before
            #expect(grown < 150 << 20, "serve's peak resident memory grew by \(grown >> 20) MiB for a \((lines.count * item.utf8.count) >> 20) MiB batch")
        }
    }

    /// `VmHWM` of /proc/PID/status, in bytes.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let match = status.firstMatch(of: /VmHWM:\s*(\d+) kB/), let kilobytes = Int(match.1) else {
            throw RawClient.Failure(description: "no VmHWM in /proc/\(pid)/status")
        }
        return kilobytes << 10
    }
}
