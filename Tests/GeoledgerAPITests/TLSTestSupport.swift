import DatabaseTestSupport
import Foundation

/// A certificate authority made with the `openssl` command in a folder of its own, and the certificates it issues:
/// for the tests of `serve --tls-*`. The folder is removed with it.
final class TestCA: Sendable {
    let directory: String
    let name: String
    /// The CA's certificate, PEM.
    var certificate: String { directory + "/ca.pem" }

    init(_ name: String = "Geoledger Test CA") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-ca-\(UUID().uuidString)").path
        self.name = name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory + "/ca.key",
            "-out", certificate, "-days", "30", "-subj", "/CN=\(name)",
        ])
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A certificate and its key signed by this CA: for a server (its subject alternative names `hosts`) or a client.
    /// - Parameter days: how long it is valid from now; negative for one that expired.
    func issue(
        _ commonName: String, hosts: [String] = ["localhost", "127.0.0.1"], client: Bool = false, days: Int = 2
    ) throws -> (certificate: String, key: String) {
        let base = directory + "/" + commonName.replacingOccurrences(of: " ", with: "-") + "-\(UUID().uuidString.prefix(8))"
        let extensions = client
            ? "extendedKeyUsage=clientAuth\n"
            : "subjectAltName=" + hosts.map { $0.first!.isNumber ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
                + "\nextendedKeyUsage=serverAuth\n"
        try extensions.write(toFile: base + ".ext", atomically: true, encoding: .utf8)
        try Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", base + ".key", "-out",
            base + ".csr", "-subj", "/O=Geoledger Tests/CN=\(commonName)",
        ])
        try Self.openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", certificate, "-CAkey", directory + "/ca.key", "-set_serial",
            String(UInt32.random(in: 1...UInt32.max)), "-days", String(days), "-extfile", base + ".ext", "-out", base + ".pem",
        ])
        return (base + ".pem", base + ".key")
    }

    /// What `openssl x509 -noout -fingerprint -sha256` prints: `sha256 Fingerprint=AB:CD:...`.
    static func fingerprint(of certificate: String) throws -> String {
        try openssl(["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The 64 lowercase hex digits of a certificate's SHA-256.
    static func sha256(of certificate: String) throws -> String {
        let printed = try fingerprint(of: certificate)
        return String(printed[printed.index(after: printed.lastIndex(of: "=")!)...]).replacingOccurrences(of: ":", with: "").lowercased()
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> String {
        let outcome = try TLSClient.run(TLSClient.program("openssl"), arguments)
        guard outcome.status == 0 else {
            throw TLSClient.Failure(description: "openssl \(arguments.joined(separator: " ")): \(outcome.stderr)")
        }
        return outcome.stdout
    }
}

/// `curl` and `openssl s_client` as a client sees the server with them.
enum TLSClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What curl got: its exit status (0 when an answer came), the answer's status, headers and body, its error.
    struct Answer {
        let exitStatus: Int32
        let status: Int
        let head: String
        let body: String
        let stderr: String

        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The path of a program the TLS tests need; they fail, not skip, when it is missing.
    static func program(_ name: String) throws -> String {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        throw Failure(description: "\(name) is not installed: the TLS tests need it (scripts/ensure-deps.sh installs it as root)")
    }

    static func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(arguments, input: input, executable: program)
    }

    /// `curl` with `arguments` (the URL among them), the head and body of its answer read apart.
    static func curl(_ arguments: [String]) throws -> Answer {
        let outcome = try run(try program("curl"), ["-sS", "-i", "--max-time", "60"] + arguments)
        let parts = outcome.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return Answer(
            exitStatus: outcome.status, status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"),
            stderr: outcome.stderr)
    }

    /// `openssl s_client` connecting to 127.0.0.1:`port` and closing once the handshake is done: its exit status and
    /// what it printed.
    static func handshake(port: Int, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outcome = try run(
            try program("openssl"), ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"] + arguments,
            input: "")
        return (outcome.status, outcome.stdout + outcome.stderr)
    }
}
