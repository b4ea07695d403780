import DatabaseTestSupport
import Testing

/// What `--help` tells an operator about TLS, client certificates and connection limits.
@Suite("serve --help and token create --help")
struct ServeHelpTests {
    @Test("serve --help names every TLS and connection-limit option with its variable, and the answers past the limits")
    func serveHelp() throws {
        let help = try GeoledgerProcess.run(["serve", "--help"])
        #expect(help.status == 0)
        for text in [
            "--tls-cert FILE", "GEOLEDGER_TLS_CERT", "--tls-key FILE", "GEOLEDGER_TLS_KEY", "--tls-client-ca FILE",
            "GEOLEDGER_TLS_CLIENT_CA", "TLS 1.3 and 1.2", "Strict-Transport-Security", "SIGHUP", "--max-connections N",
            "GEOLEDGER_MAX_CONNECTIONS", "--max-connections-per-client N", "GEOLEDGER_MAX_CONNECTIONS_PER_CLIENT",
            "too_many_connections as soon as it opens", "429 too_many_connections_from_client", "database_full",
        ] {
            #expect(help.stdout.contains(text), "serve --help lacks \(text)")
        }
    }

    @Test("token create --help says what --client-cert takes and does")
    func tokenHelp() throws {
        let help = try GeoledgerProcess.run(["token", "create", "--help"])
        #expect(help.status == 0)
        for text in ["--client-cert SHA256", "openssl x509 -noout -fingerprint -sha256", "answered 401 otherwise"] {
            #expect(help.stdout.contains(text), "token create --help lacks \(text)")
        }
    }
}
