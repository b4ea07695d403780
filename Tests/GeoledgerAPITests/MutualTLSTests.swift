import DatabaseTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `serve --tls-client-ca` and tokens bound to a client certificate (`token create --client-cert`).
// One at a time: each test runs a server with its pool of database connections, beside the other suites' own.
@Suite("mutual TLS: client certificates required, named in the log, and bound to tokens", .serialized)
struct MutualTLSTests {
    @Test("without a client certificate, or with one another CA signed, no request is answered; with one the CA signed it is, and the log names its subject")
    func clientCertificateRequired() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let ca = try TestCA(), clients = try TestCA("Batch Jobs CA"), foreign = try TestCA("Foreign CA")
            let server = try ca.issue("localhost")
            let job = try clients.issue("nightly-upload", client: true)
            let stranger = try foreign.issue("nightly-upload", client: true)
            let serve = try ServeProcess(url: url, arguments: [
                "--tls-cert", server.certificate, "--tls-key", server.key, "--tls-client-ca", clients.certificate,
            ])
            let target = "https://localhost:\(serve.port)/v1/events?after=0"
            let bearer = ["-H", "Authorization: Bearer \(token)"]

            let none = try TLSClient.curl(["--cacert", ca.certificate] + bearer + [target])
            #expect(none.exitStatus != 0 && none.status == 0, "answered without a client certificate: \(none.head)")
            let other = try TLSClient.curl(
                ["--cacert", ca.certificate, "--cert", stranger.certificate, "--key", stranger.key] + bearer + [target])
            #expect(other.exitStatus != 0 && other.status == 0, "answered with another CA's certificate: \(other.head)")
            // A certificate the client CA did not sign is refused even when the server's own CA signed it.
            let serverCASigned = try ca.issue("nightly-upload", client: true)
            let sibling = try TLSClient.curl(
                ["--cacert", ca.certificate, "--cert", serverCASigned.certificate, "--key", serverCASigned.key] + bearer + [target])
            #expect(sibling.exitStatus != 0 && sibling.status == 0, "\(sibling.head)")

            let signed = try TLSClient.curl(["--cacert", ca.certificate, "--cert", job.certificate, "--key", job.key] + bearer + [target])
            #expect(signed.status == 200, "\(signed.stderr)\(signed.body)")

            kill(serve.pid, SIGTERM)
            #expect(try serve.waitForExit(seconds: 15) == 0)
            let answered = serve.logEntries().filter { $0["route"] as? String == "/v1/events" }
            #expect(answered.count == 1, "only the request with a signed certificate reached the server: \(answered)")
            #expect(answered.first?["clientCertificate"] as? String == "CN=nightly-upload,O=Geoledger Tests", "\(answered)")
        }
    }

    @Test("a token bound to a certificate is 401 from another certificate, and from a connection without one; from its own it is served")
    func boundToken() async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let ca = try TestCA(), clients = try TestCA("Batch Jobs CA")
            let server = try ca.issue("localhost")
            let nightly = try clients.issue("nightly-upload", client: true)
            let reporting = try clients.issue("reporting", client: true)
            // As openssl prints it, `sha256 Fingerprint=AB:CD:...`.
            let created = try GeoledgerProcess.run(
                ["token", "create", "--name", "nightly", "--scopes", "read", "--client-cert", try TestCA.fingerprint(of: nightly.certificate)],
                environment: ["DATABASE_URL": url])
            #expect(created.status == 0, "\(created.stderr)")
            let bound = created.stdout.trimmingCharacters(in: .newlines)
            let listed = try GeoledgerProcess.run(["token", "list", "--format", "csv"], environment: ["DATABASE_URL": url])
            #expect(listed.stdout.contains(try TestCA.sha256(of: nightly.certificate)), "\(listed.stdout)")

            let mutual = try ServeProcess(url: url, arguments: [
                "--tls-cert", server.certificate, "--tls-key", server.key, "--tls-client-ca", clients.certificate,
            ])
            let target = "https://localhost:\(mutual.port)/v1/events?after=0"
            func get(_ client: (certificate: String, key: String)) throws -> TLSClient.Answer {
                try TLSClient.curl([
                    "--cacert", ca.certificate, "--cert", client.certificate, "--key", client.key,
                    "-H", "Authorization: Bearer \(bound)", target,
                ])
            }
            #expect(try get(nightly).status == 200)
            let stolen = try get(reporting)
            #expect(stolen.status == 401, "\(stolen.stderr)\(stolen.body)")
            #expect(stolen.body.contains("is bound to a client certificate, and this connection presented another"), "\(stolen.body)")
            kill(mutual.pid, SIGTERM)
            _ = try mutual.waitForExit(seconds: 15)

            // Over TLS without client certificates the token alone is not enough either.
            let plainTLS = try ServeProcess(url: url, arguments: ["--tls-cert", server.certificate, "--tls-key", server.key])
            let alone = try TLSClient.curl([
                "--cacert", ca.certificate, "-H", "Authorization: Bearer \(bound)", "https://localhost:\(plainTLS.port)/v1/events?after=0",
            ])
            #expect(alone.status == 401, "\(alone.stderr)\(alone.body)")
            #expect(alone.body.contains("presented none"), "\(alone.body)")
        }
    }

    @Test("token create --client-cert takes 64 hex digits with or without colons, and refuses anything else naming the option", arguments: [
        "abc", "zz" + String(repeating: "0", count: 62), String(repeating: "0", count: 63),
    ])
    func fingerprintValidation(_ text: String) async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let refused = try GeoledgerProcess.run(
                ["token", "create", "--name", "x", "--scopes", "read", "--client-cert", text], environment: ["DATABASE_URL": url])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--client-cert: a client certificate is named by its SHA-256 fingerprint"), "\(refused.stderr)")
            let digits = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }
            let accepted = try GeoledgerProcess.run(
                ["token", "create", "--name", "colons", "--scopes", "read", "--client-cert", digits.joined(separator: ":")],
                environment: ["DATABASE_URL": url])
            #expect(accepted.status == 0, "\(accepted.stderr)")
            let listed = try GeoledgerProcess.run(["token", "list", "--format", "json"], environment: ["DATABASE_URL": url])
            #expect(listed.stdout.contains(digits.joined().lowercased()), "\(listed.stdout)")
        }
    }
}
