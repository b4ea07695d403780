import DatabaseTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP makes `serve` read its certificate files again without dropping connections.
@Suite("serve reloads its TLS certificate on SIGHUP")
struct CertificateReloadTests {
    @Test("SIGHUP swaps the certificate for new connections while a slow upload on an old one completes; files that cannot be used leave the served certificate in place")
    func reloadDuringLongRequest() async throws {
        try await ServeProcess.onFreshDatabase { url, token in
            let before = try TestCA("Before CA"), after = try TestCA("After CA")
            let first = try before.issue("localhost"), second = try after.issue("localhost")
            let certificate = before.directory + "/served.pem", key = before.directory + "/served.key"
            try FileManager.default.copyItem(atPath: first.certificate, toPath: certificate)
            try FileManager.default.copyItem(atPath: first.key, toPath: key)
            let serve = try ServeProcess(url: url, arguments: ["--tls-cert", certificate, "--tls-key", key])
            func health(trusting ca: TestCA) throws -> TLSClient.Answer {
                try TLSClient.curl(["--cacert", ca.certificate, "https://localhost:\(serve.port)/healthz"])
            }
            #expect(try health(trusting: before).status == 200)

            // A batch uploaded at 30 KB/s: some seconds on one connection, which began with the first certificate.
            let ids = (0..<200).map { _ in UUID() }
            let batch = before.directory + "/batch.json"
            try ("[" + ids.map { Submissions.merchantFix("M-reload", id: $0) }.joined(separator: ",") + "]")
                .write(toFile: batch, atomically: true, encoding: .utf8)
            let upload = Process()
            upload.executableURL = URL(fileURLWithPath: try TLSClient.program("curl"))
            upload.arguments = [
                "-sS", "--max-time", "60", "--limit-rate", "30k", "--cacert", before.certificate, "-H", "Authorization: Bearer \(token)",
                "-H", "Content-Type: application/json", "--data-binary", "@" + batch, "-w", "\n%{http_code}",
                "https://localhost:\(serve.port)/v1/events",
            ]
            let output = Pipe()
            upload.standardOutput = output
            try upload.run()
            usleep(1_000_000)
            #expect(upload.isRunning, "the upload ended before the reload")

            try FileManager.default.removeItem(atPath: key)
            try FileManager.default.copyItem(atPath: second.key, toPath: key)
            try FileManager.default.removeItem(atPath: certificate)
            try FileManager.default.copyItem(atPath: second.certificate, toPath: certificate)
            kill(serve.pid, SIGHUP)
            var swapped = false
            for _ in 0..<50 where !swapped {
                swapped = try health(trusting: after).status == 200
                if !swapped { usleep(100_000) }
            }
            #expect(swapped, "new connections never got the second certificate")
            #expect(upload.isRunning, "the upload was not in progress when the certificate changed")
            let stale = try health(trusting: before)
            #expect(stale.status == 0, "a new connection still got the first certificate")

            let answer = String(decoding: output.fileHandleForReading.readUntilEnd(), as: UTF8.self)
            upload.waitUntilExit()
            #expect(upload.terminationStatus == 0)
            #expect(answer.hasSuffix("\n200"), "\(answer.suffix(300))")
            #expect(try ServeProcess.storedIDs(url: url) == Set(ids.map { $0.uuidString.lowercased() }))

            // A certificate file that cannot be used is logged, and the second certificate stays.
            try "not a certificate".write(toFile: certificate, atomically: true, encoding: .utf8)
            kill(serve.pid, SIGHUP)
            usleep(500_000)
            #expect(try health(trusting: after).status == 200)

            kill(serve.pid, SIGTERM)
            #expect(try serve.waitForExit(seconds: 15) == 0)
            let log = serve.standardError
            #expect(log.contains("reloaded the TLS certificate: CN=localhost,O=Geoledger Tests"), "\(log)")
            #expect(
                log.contains("the TLS certificate was not reloaded, the previous one is still served: the TLS certificate \(certificate) holds no PEM certificate"),
                "\(log)")
        }
    }
}
