import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import RawHTTPClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `geoledger serve --tls-cert --tls-key` as clients see it: curl and openssl s_client against a certificate made by
/// a test CA.
// One at a time: each test runs a server with its pool of database connections, beside the other suites' own.
@Suite("serve over TLS: certificates, protocol versions, plain HTTP refused, start-up errors", .serialized)
struct TLSServeTests {
    @Test("a client that trusts the CA gets its answers over TLS 1.3 or 1.2, each with Strict-Transport-Security; the printed URL is https")
    func validClient() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let ca = try TestCA()
            let server = try ca.issue("localhost")
            let serve = try ServeProcess(url: url, arguments: ["--tls-cert", server.certificate, "--tls-key", server.key])
            #expect(serve.listening.contains("https://127.0.0.1:\(serve.port)"), "\(serve.listening)")

            let health = try TLSClient.curl(["--cacert", ca.certificate, "https://localhost:\(serve.port)/healthz"])
            #expect(health.exitStatus == 0, "\(health.stderr)")
            #expect(health.status == 200)
            #expect(health.header("Strict-Transport-Security") == "max-age=31536000", "\(health.head)")
            // An error answer carries it too.
            let refused = try TLSClient.curl(["--cacert", ca.certificate, "https://localhost:\(serve.port)/v1/events?after=0"])
            #expect(refused.status == 401)
            #expect(refused.header("Strict-Transport-Security") == "max-age=31536000", "\(refused.head)")
            let feed = try TLSClient.curl([
                "--cacert", ca.certificate, "-H", "Authorization: Bearer \(token)", "https://127.0.0.1:\(serve.port)/v1/events?after=0",
            ])
            #expect(feed.status == 200, "\(feed.stderr)\(feed.body)")

            for (flag, version) in [("-tls1_3", "TLSv1.3"), ("-tls1_2", "TLSv1.2")] {
                let handshake = try TLSClient.handshake(port: serve.port, [flag, "-CAfile", ca.certificate, "-verify_return_error"])
                #expect(handshake.status == 0, "\(handshake.output)")
                #expect(handshake.output.contains("Protocol  : \(version)") || handshake.output.contains("Protocol: \(version)")
                    || handshake.output.contains(", \(version),"), "\(handshake.output)")
            }
            kill(serve.pid, SIGTERM)
            #expect(try serve.waitForExit(seconds: 15) == 0)
            #expect(serve.standardError.contains("serving TLS with the certificate"), "\(serve.standardError)")
        }
    }

    @Test("TLS 1.0 and 1.1 are refused even by a client willing to use them (curl, openssl s_client)")
    func oldVersionsRefused() async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let ca = try TestCA()
            let server = try ca.issue("localhost")
            let serve = try ServeProcess(url: url, arguments: ["--tls-cert", server.certificate, "--tls-key", server.key])
            // Security level 0 lets OpenSSL offer the old versions and their ciphers: the refusal is the server's.
            let curl = try TLSClient.curl([
                "--cacert", ca.certificate, "--tlsv1.1", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0",
                "https://localhost:\(serve.port)/healthz",
            ])
            #expect(curl.exitStatus != 0 && curl.status == 0, "curl over TLS 1.1 got an answer: \(curl.head)")
            for flag in ["-tls1_1", "-tls1"] {
                let handshake = try TLSClient.handshake(port: serve.port, [flag, "-cipher", "DEFAULT@SECLEVEL=0"])
                #expect(handshake.status != 0, "openssl s_client \(flag) connected: \(handshake.output)")
                #expect(!handshake.output.contains("BEGIN CERTIFICATE"), "the server sent its certificate over \(flag)")
            }
            // The same client is served once it may use TLS 1.2: what failed was the version.
            let allowed = try TLSClient.curl([
                "--cacert", ca.certificate, "--tlsv1.1", "--ciphers", "DEFAULT@SECLEVEL=0", "https://localhost:\(serve.port)/healthz",
            ])
            #expect(allowed.status == 200, "\(allowed.stderr)")
        }
    }

    @Test("plain HTTP to the TLS port gets no HTTP answer")
    func plainHTTPRefused() async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let ca = try TestCA()
            let server = try ca.issue("localhost")
            let serve = try ServeProcess(url: url, arguments: ["--tls-cert", server.certificate, "--tls-key", server.key])
            let curl = try TLSClient.curl(["http://127.0.0.1:\(serve.port)/healthz"])
            #expect(curl.exitStatus != 0 && curl.status == 0, "plain HTTP was answered: \(curl.head)")
            let client = try RawClient(port: serve.port, timeout: .seconds(10))
            try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(throws: (any Error).self, "a plain request was answered") { try client.readResponse() }
        }
    }

    @Test("an expired certificate, or one for another host, is refused by a client that checks it")
    func expiredAndWrongHost() async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let ca = try TestCA()
            let expired = try ca.issue("localhost", days: -1)
            let serve = try ServeProcess(url: url, arguments: ["--tls-cert", expired.certificate, "--tls-key", expired.key])
            let stale = try TLSClient.curl(["--cacert", ca.certificate, "https://localhost:\(serve.port)/healthz"])
            #expect(stale.exitStatus != 0 && stale.status == 0, "\(stale.head)")
            #expect(stale.stderr.contains("expired"), "\(stale.stderr)")
            kill(serve.pid, SIGTERM)
            _ = try serve.waitForExit(seconds: 15)
            #expect(serve.standardError.contains("expired"), "serve's log says the certificate expired: \(serve.standardError)")

            let elsewhere = try ca.issue("api.example.com", hosts: ["api.example.com"])
            let other = try ServeProcess(url: url, arguments: ["--tls-cert", elsewhere.certificate, "--tls-key", elsewhere.key])
            let wrongHost = try TLSClient.curl(["--cacert", ca.certificate, "https://localhost:\(other.port)/healthz"])
            #expect(wrongHost.exitStatus != 0 && wrongHost.status == 0, "\(wrongHost.head)")
            #expect(wrongHost.stderr.contains("localhost"), "\(wrongHost.stderr)")
            // The same certificate is good for the host it names.
            let named = try TLSClient.curl([
                "--cacert", ca.certificate, "--resolve", "api.example.com:\(other.port):127.0.0.1",
                "https://api.example.com:\(other.port)/healthz",
            ])
            #expect(named.status == 200, "\(named.stderr)")
        }
    }

    @Test("start-up: one of --tls-cert and --tls-key without the other is a usage error naming it; unreadable or mismatched files exit 1 naming the file")
    func startupErrors() async throws {
        try await ServeProcess.onFreshDatabase { url, _ in
            let ca = try TestCA()
            let server = try ca.issue("localhost")
            let another = try ca.issue("localhost")
            let environment: [String: String?] = ["DATABASE_URL": url]
            func serve(_ arguments: [String], _ added: [String: String?] = [:]) throws -> GeoledgerProcess.Outcome {
                try GeoledgerProcess.run(
                    ["serve", "--listen", "127.0.0.1:0"] + arguments, environment: environment.merging(added) { $1 })
            }

            let certificateOnly = try serve(["--tls-cert", server.certificate])
            #expect(certificateOnly.status == 64)
            #expect(certificateOnly.stderr.contains("--tls-cert needs --tls-key"), "\(certificateOnly.stderr)")
            let keyOnly = try serve([], ["GEOLEDGER_TLS_KEY": server.key])
            #expect(keyOnly.status == 64)
            #expect(keyOnly.stderr.contains("GEOLEDGER_TLS_KEY needs --tls-cert"), "\(keyOnly.stderr)")
            let caOnly = try serve(["--tls-client-ca", ca.certificate])
            #expect(caOnly.status == 64)
            #expect(caOnly.stderr.contains("--tls-client-ca needs --tls-cert"), "\(caOnly.stderr)")

            let missing = try serve(["--tls-cert", ca.directory + "/absent.pem", "--tls-key", server.key])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("cannot read the TLS certificate \(ca.directory)/absent.pem: No such file"), "\(missing.stderr)")
            let mismatched = try serve(["--tls-cert", server.certificate, "--tls-key", another.key])
            #expect(mismatched.status == 1)
            #expect(
                mismatched.stderr.contains("the TLS key \(another.key) does not belong to the certificate \(server.certificate)"),
                "\(mismatched.stderr)")
            let keyAsCertificate = try serve(["--tls-cert", server.key, "--tls-key", server.key])
            #expect(keyAsCertificate.status == 1)
            #expect(keyAsCertificate.stderr.contains("holds no PEM certificate"), "\(keyAsCertificate.stderr)")
            let certificateAsKey = try serve(["--tls-cert", server.certificate, "--tls-key", server.certificate])
            #expect(certificateAsKey.status == 1)
            #expect(certificateAsKey.stderr.contains("is not an unencrypted PEM private key"), "\(certificateAsKey.stderr)")
            let badCA = try serve(["--tls-cert", server.certificate, "--tls-key", server.key, "--tls-client-ca", server.key])
            #expect(badCA.status == 1)
            #expect(badCA.stderr.contains("the TLS client CA \(server.key) holds no PEM certificate"), "\(badCA.stderr)")
        }
    }
}
