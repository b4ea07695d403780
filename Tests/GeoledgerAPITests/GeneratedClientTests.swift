import Foundation
import GeoledgerAPI
import Testing

/// A client generated from /openapi.json by a real generator (openapi-python-client, installed by
/// scripts/python-tools.sh, which `make test` runs), used as a batch job would: it posts a batch and reads the
/// merchant's history back, with the models the document gave it.
@Suite("A client generated from /openapi.json")
struct GeneratedClientTests {
    /// Where `Tests/GeneratedClient` is: the script the client runs and the generator's settings.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GeneratedClient")

    @Test("openapi-python-client generates a client that posts a batch and reads the history back")
    func postAndRead() async throws {
        let tools = try #require(
            ProcessInfo.processInfo.environment["GEOLEDGER_PYTHON_TOOLS"].map { URL(fileURLWithPath: $0) },
            "GEOLEDGER_PYTHON_TOOLS is not set: run scripts/python-tools.sh and set it to .build/python-tools (make test does both)")
        let generator = tools.appendingPathComponent("bin/openapi-python-client")
        try #require(
            FileManager.default.isExecutableFile(atPath: generator.path),
            "\(generator.path) is missing: run scripts/python-tools.sh (make test does)")

        let output = try await withAPI { server in
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-client-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let document = work.appendingPathComponent("openapi.json")
            try Data(server.call("GET", "/openapi.json").body).write(to: document)
            _ = try Self.run(generator, [
                "generate", "--path", document.path, "--output-path", work.appendingPathComponent("geoledger_client").path,
                "--meta", "none", "--config", Self.folder.appendingPathComponent("config.yaml").path,
            ])
            return try Self.run(tools.appendingPathComponent("bin/python"), [
                Self.folder.appendingPathComponent("post_and_read.py").path, work.path, "http://127.0.0.1:\(server.port)",
                server.tokens["ingest"]!, server.tokens["read"]!, Located.time(0),
            ])
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect(answer["appended"] as? Int == 1, "\(output)")
        #expect(answer["status"] as? String == "appended")
        let rows = try #require(answer["rows"] as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["eventId"] as? String == answer["sent"] as? String)
        #expect(rows.first?["eventType"] as? String == "MerchantAddressFixed")
        #expect(rows.first?["accuracy"] as? String == "precise")
    }

    /// Runs `program` and returns its standard output; throws, with its standard error, unless it exits 0.
    static func run(_ program: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readUntilEnd()
        let errors = err.fileHandleForReading.readUntilEnd()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw GeneratedClientFailure(
                description: "\(program.lastPathComponent) exited \(process.terminationStatus): "
                    + String(decoding: errors.suffix(2000), as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }
}

struct GeneratedClientFailure: Error, CustomStringConvertible {
    let description: String
}
