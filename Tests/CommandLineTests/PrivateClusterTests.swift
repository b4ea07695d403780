import DatabaseTestSupport
import Foundation
import Testing

/// `db start` and `db status` on clusters of their own, each in a fresh folder (its socket too: the default port
/// number does not clash with any other cluster's).
@Suite("geoledger db start: the private cluster")
struct PrivateClusterTests {
    /// Runs `body` with a new cluster's folder, then stops the cluster and removes the folder.
    func withNewCluster(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-cluster-\(UUID())").path
        defer {
            _ = try? GeoledgerProcess.run(["db", "stop", "--dir", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        try body(folder)
    }

    /// A shell's `$(geoledger db start)` ends when every holder of the pipe has closed it: the server must not be one.
    @Test("the server db start leaves running keeps no descriptor db start inherited")
    func serverKeepsNoInheritedDescriptor() throws {
        try withNewCluster { folder in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // Descriptor 3 is another copy of the output pipe.
            process.arguments = ["-c", #"exec "$0" db start --dir "$1" --throwaway 3>&1"#, GeoledgerProcess.binary, folder]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let finished = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var printed = Data()
            DispatchQueue.global().async {
                printed = output.fileHandleForReading.readDataToEndOfFile()
                finished.signal()
            }
            // Foundation learns that a process ended from a descriptor the process inherits: while the server holds
            // that too, waiting for db start to exit would never end.
            try #require(finished.wait(timeout: .now() + 30) == .success, "the output pipe is still held open after db start exited")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(String(decoding: printed, as: UTF8.self).hasPrefix("postgresql:///geoledger?"))
        }
    }
}
