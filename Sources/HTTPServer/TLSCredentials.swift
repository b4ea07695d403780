internal import CGnuTLS
internal import CMicroHTTPD
import Foundation
import Synchronization

/// A certificate, its key and the client CAs, read from their files and loaded into GnuTLS credentials this object
/// owns. Immutable once made: a reload makes new ones.
// @unchecked: GnuTLS credentials are only read once made, and GnuTLS shares them between sessions on any thread.
final class TLSCredentials: @unchecked Sendable {
    private let handle: gnutls_certificate_credentials_t
    /// The PEM texts, which libmicrohttpd needs to start a TLS daemon.
    let certificatePEM: String
    let keyPEM: String
    let requiresClientCertificate: Bool
    /// The certificate's subject and expiry, as a log line says them.
    let summary: String
    let expires: Date

    private init(
        handle: gnutls_certificate_credentials_t, certificatePEM: String, keyPEM: String,
        requiresClientCertificate: Bool, summary: String, expires: Date
    ) {
        self.handle = handle
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
        self.requiresClientCertificate = requiresClientCertificate
        self.summary = summary
        self.expires = expires
    }

    deinit {
        gnutls_certificate_free_credentials(handle)
    }

    /// Reads and checks the files of `tls`.
    /// - Throws: ``HTTPServerError`` of kind `tls`, naming the file and what is wrong with it.
    static func load(_ tls: HTTPServer.TLS) throws(HTTPServerError) -> TLSCredentials {
        let certificate = try read(tls.certificateFile, "certificate")
        let key = try read(tls.keyFile, "key")
        let certificates = geoledger_tls_count_certificates(certificate)
        guard certificates > 0 else {
            throw failure("the TLS certificate \(tls.certificateFile) holds no PEM certificate", certificates)
        }
        let keyStatus = geoledger_tls_check_key(key)
        guard keyStatus >= 0 else {
            throw failure("the TLS key \(tls.keyFile) is not an unencrypted PEM private key", keyStatus)
        }
        var made: gnutls_certificate_credentials_t?
        let status = geoledger_tls_make_credentials(&made, certificate, key)
        guard status >= 0, let made else {
            if status == GNUTLS_E_CERTIFICATE_KEY_MISMATCH {
                throw HTTPServerError(
                    .tls, "the TLS key \(tls.keyFile) does not belong to the certificate \(tls.certificateFile)")
            }
            throw failure("the TLS certificate \(tls.certificateFile) and key \(tls.keyFile) cannot be used", status)
        }
        if let caFile = tls.clientCAFile {
            let ca: String
            do throws(HTTPServerError) {
                ca = try read(caFile, "client CA")
            } catch {
                gnutls_certificate_free_credentials(made)
                throw error
            }
            let added = geoledger_tls_add_trust(made, ca)
            guard added > 0 else {
                gnutls_certificate_free_credentials(made)
                throw failure("the TLS client CA \(caFile) holds no PEM certificate", added)
            }
        }
        var subject = [CChar](repeating: 0, count: 1024)
        var expires = time_t(0)
        _ = geoledger_tls_certificate_summary(certificate, &subject, subject.count, &expires)
        let expiry = Date(timeIntervalSince1970: TimeInterval(expires))
        let subjectText = String(decoding: subject.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return TLSCredentials(
            handle: made, certificatePEM: certificate, keyPEM: key, requiresClientCertificate: tls.clientCAFile != nil,
            summary: "\(subjectText), \(expiry < Date() ? "expired" : "expires") \(expiry.formatted(.iso8601))",
            expires: expiry)
    }

    /// Makes a connection's session, before its handshake, use these credentials.
    func attach(to connection: OpaquePointer) -> Bool {
        guard let session = geoledger_mhd_tls_session(connection) else { return false }
        return geoledger_tls_attach(session, handle, requiresClientCertificate ? 1 : 0) >= 0
    }

    private static func read(_ path: String, _ what: String) throws(HTTPServerError) -> String {
        guard let file = fopen(path, "r") else {
            throw HTTPServerError(.tls, "cannot read the TLS \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            bytes += buffer[0..<count]
            if count < buffer.count { break }
            guard bytes.count <= 1 << 20 else { throw HTTPServerError(.tls, "the TLS \(what) \(path) is over 1 MiB") }
        }
        guard ferror(file) == 0 else {
            throw HTTPServerError(.tls, "cannot read the TLS \(what) \(path): \(String(cString: strerror(errno)))")
        }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            throw HTTPServerError(.tls, "the TLS \(what) \(path) is not PEM text")
        }
        return text
    }

    private static func failure(_ message: String, _ status: Int32) -> HTTPServerError {
        status < 0 ? HTTPServerError(.tls, "\(message): \(String(cString: gnutls_strerror(status)))") : HTTPServerError(.tls, message)
    }
}

/// The credentials new connections get, replaced by a reload.
final class TLSCertificates: Sendable {
    let settings: HTTPServer.TLS
    private let current: Mutex<TLSCredentials>

    init(_ settings: HTTPServer.TLS) throws(HTTPServerError) {
        self.settings = settings
        current = Mutex(try TLSCredentials.load(settings))
    }

    var credentials: TLSCredentials {
        current.withLock { $0 }
    }

    /// Loads the files again; on success new connections get the new credentials, while each open connection keeps
    /// its own (``ConnectionWatch`` holds them until libmicrohttpd has ended its session).
    func reload() throws(HTTPServerError) -> TLSCredentials {
        let loaded = try TLSCredentials.load(settings)
        current.withLock { $0 = loaded }
        return loaded
    }
}

/// The client's certificate on a mutual-TLS connection, as verified during the handshake.
public struct ClientCertificate: Sendable, Equatable {
    /// The subject's distinguished name, e.g. `CN=nightly-upload,O=Example`.
    public let subject: String
    /// The SHA-256 of the certificate (its DER encoding), as 64 lowercase hex digits: what
    /// `openssl x509 -noout -fingerprint -sha256` prints, without the colons.
    public let sha256: String

    public init(subject: String, sha256: String) {
        self.subject = subject
        self.sha256 = sha256
    }

    /// The verified certificate of a connection's client, once the handshake is done; nil when it sent none.
    static func of(_ connection: OpaquePointer) -> ClientCertificate? {
        guard let session = geoledger_mhd_tls_session(connection) else { return nil }
        var subject = [CChar](repeating: 0, count: 1024)
        var digest = [UInt8](repeating: 0, count: 32)
        guard geoledger_tls_peer_certificate(session, &subject, subject.count, &digest, digest.count) == 1 else { return nil }
        return ClientCertificate(
            subject: String(decoding: subject.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
            sha256: digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
    }
}
