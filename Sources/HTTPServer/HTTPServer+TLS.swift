import Foundation

extension HTTPServer {
    /// Serving HTTPS: the server's certificate and key, and optionally the CA its clients' certificates must be
    /// signed by (mutual TLS). Files are PEM; the key is not encrypted.
    public struct TLS: Sendable, Equatable {
        /// The certificate, followed by any intermediate certificates.
        public var certificateFile: String
        public var keyFile: String
        /// When set, every client must present a certificate that verifies against these CAs, or the handshake fails.
        public var clientCAFile: String?
        /// GnuTLS's priority string: the protocol versions and cipher suites offered.
        public var priorities: String
        /// The `Strict-Transport-Security` header every answer carries.
        public var strictTransportSecurity: String

        /// TLS 1.3 and 1.2 only, with GnuTLS's default (secure) cipher suites for them.
        public static let modernPriorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

        public init(
            certificateFile: String, keyFile: String, clientCAFile: String? = nil,
            priorities: String = TLS.modernPriorities, strictTransportSecurity: String = "max-age=31536000"
        ) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.clientCAFile = clientCAFile
            self.priorities = priorities
            self.strictTransportSecurity = strictTransportSecurity
        }
    }

    /// The served certificate's subject and expiry (saying `expired` once it has), for a log line; nil for plain HTTP.
    public var certificateSummary: String? {
        dispatcher.certificates?.credentials.summary
    }

    /// Reads the certificate, key and client CA files again and serves new connections with them; connections already
    /// open keep the ones they began with. On failure the server goes on with the ones it had.
    /// - Returns: The new certificate's subject and expiry, for a log line.
    /// - Throws: ``HTTPServerError`` of kind `tls` naming the file at fault; `invalidConfiguration` on a plain server.
    @discardableResult
    public func reloadCertificates() throws(HTTPServerError) -> String {
        guard let certificates = dispatcher.certificates else {
            throw HTTPServerError(.invalidConfiguration, "the server is not serving TLS: there is no certificate to reload")
        }
        return try certificates.reload().summary
    }

    /// Reloads the certificates (``reloadCertificates()``) on SIGHUP, logging the outcome through
    /// ``Configuration/log``. Keep the returned value for as long as that should hold.
    public func reloadCertificatesOnSignal(_ signals: [Int32] = [SIGHUP]) -> ShutdownSignals {
        let log = configuration.log
        return ShutdownSignals(signals) { [weak self] _ in
            guard let self else { return }
            do {
                log("reloaded the TLS certificate: \(try reloadCertificates())")
            } catch {
                log("the TLS certificate was not reloaded, the previous one is still served: \(error)")
            }
        }
    }
}
