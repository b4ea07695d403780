import EventStore
import Foundation
import Postgres

/// What a token lets its bearer do: `ingest` POSTs events, `read` GETs under `/v1`, `admin` both.
public enum TokenScope: String, Sendable, CaseIterable, Comparable {
    case ingest, read, admin

    /// Whether a token with `scopes` may do what needs this scope.
    func isGranted(by scopes: Set<TokenScope>) -> Bool {
        scopes.contains(self) || scopes.contains(.admin)
    }

    public static func < (a: TokenScope, b: TokenScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// `ingest,read` as `token create --scopes` takes it.
    public static func parse(_ text: String) throws(APIError) -> Set<TokenScope> {
        var scopes = Set<TokenScope>()
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            guard let scope = TokenScope(rawValue: name) else {
                throw APIError.token("'\(name)' is not a scope: the scopes are ingest, read and admin")
            }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw APIError.token("name at least one scope: ingest, read or admin") }
        return scopes
    }
}

/// A token as `token list` shows it: never the token itself.
public struct APIToken: Sendable, Equatable {
    public var name: String
    public var scopes: [TokenScope]
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The SHA-256 of the client certificate the token is bound to (64 lowercase hex digits): it is accepted only from
    /// a connection whose client presented that certificate. Nil for a token any connection may bear.
    public var clientCertificateSHA256: String?
}

/// The API's bearer tokens in the `api_tokens` table. A token reads `glt_<id>_<secret>`: the id (16 hex digits) finds
/// its row, and the SHA-256 of the whole token, the only thing stored of it, is compared in constant time.
public struct TokenStore: Sendable {
    static let prefix = "glt_"

    public init() {}

    /// Makes a token and returns it: it is shown this once, and cannot be read back.
    /// - Parameter clientCertificateSHA256: binds the token to the client certificate of that SHA-256 (see
    ///   ``clientCertificateFingerprint(_:)``).
    /// - Throws: ``APIError`` for a bad name, or a name in use.
    public func create(
        name: String, scopes: Set<TokenScope>, clientCertificateSHA256: String? = nil, on connection: Connection
    ) throws -> String {
        guard Self.isValidName(name) else {
            throw APIError.token("a token's name is 1–64 characters of A–Z, a–z, 0–9, _ . : -, not '\(name)'")
        }
        guard !scopes.isEmpty else { throw APIError.token("name at least one scope: ingest, read or admin") }
        let id = Self.randomHex(bytes: 8)
        let token = Self.prefix + id + "_" + Self.randomHex(bytes: 32)
        do {
            try connection.query(
                """
                INSERT INTO api_tokens (name, token_id, token_hash, scopes, client_cert_sha256)
                VALUES ($1, $2, $3, $4::text[], $5)
                """,
                [name, id, SHA256.digest(Array(token.utf8)), scopes.sorted().map(\.rawValue), clientCertificateSHA256])
        } catch let error as PostgresError where error.isUniqueViolation && error.constraint == "api_tokens_pkey" {
            throw APIError.token("a token named \(name) exists: revoke it first, or choose another name")
        }
        return token
    }

    /// Every token, by name.
    public func list(on connection: Connection) throws -> [APIToken] {
        try connection.query(
            "SELECT name, scopes, created_at, last_used_at, client_cert_sha256 FROM api_tokens ORDER BY name"
        ).map { row in
            APIToken(
                name: try row.decode(0), scopes: try row.decode(1, as: [String].self).compactMap(TokenScope.init(rawValue:)),
                createdAt: try row.decode(2), lastUsedAt: try row.decode(3), clientCertificateSHA256: try row.decode(4))
        }
    }

    /// Removes the token named `name`; from then on it is refused. Returns whether there was one.
    public func revoke(name: String, on connection: Connection) throws -> Bool {
        try connection.query("DELETE FROM api_tokens WHERE name = $1", [name]).affectedRows > 0
    }

    /// The token `text` stands for, nil when it is not one (malformed, unknown, revoked). Notes when it was used,
    /// at most once a minute per token.
    func authenticate(_ text: String, on connection: Connection) throws -> APIToken? {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard text.hasPrefix(Self.prefix), parts.count == 3, parts[1].utf8.count == 16, parts[2].utf8.count == 64 else {
            return nil
        }
        guard let row = try connection.query(
            """
            SELECT name, scopes, created_at, last_used_at, token_hash,
                   last_used_at IS NULL OR last_used_at < now() - interval '1 minute', client_cert_sha256
            FROM api_tokens WHERE token_id = $1
            """, [String(parts[1])]
        ).first else { return nil }
        guard let stored = Digest(bytes: try row.decode(4, as: Data.self)),
            SHA256.digest(Array(text.utf8)).equalsInConstantTime(stored)
        else { return nil }
        let name = try row.decode(0, as: String.self)
        if try row.decode(5, as: Bool.self) {
            try connection.query("UPDATE api_tokens SET last_used_at = now() WHERE name = $1", [name])
        }
        return APIToken(
            name: name, scopes: try row.decode(1, as: [String].self).compactMap(TokenScope.init(rawValue:)),
            createdAt: try row.decode(2), lastUsedAt: try row.decode(3), clientCertificateSHA256: try row.decode(6))
    }

    /// A certificate's SHA-256 fingerprint as `token create --client-cert` takes it: 64 hex digits, in either case,
    /// with or without the colons `openssl x509 -noout -fingerprint -sha256` prints (and its `sha256 Fingerprint=`).
    /// - Returns: The 64 lowercase hex digits the token store keeps.
    public static func clientCertificateFingerprint(_ text: String) throws(APIError) -> String {
        var digits = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let equals = digits.lastIndex(of: "="), digits[..<equals].contains("fingerprint") {
            digits = String(digits[digits.index(after: equals)...])
        }
        digits.removeAll { $0 == ":" }
        guard digits.utf8.count == 64, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw APIError.token(
                "a client certificate is named by its SHA-256 fingerprint, 64 hex digits (colons allowed), as "
                    + "'openssl x509 -noout -fingerprint -sha256 -in CERT' prints it, not '\(text)'")
        }
        return digits
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// `bytes` bytes from the system's cryptographic random source, in hex.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return ByteaHex.digitsText(of: (0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
