import HTTPServer

/// A token as another door than the API's (the web console's sign-in) checks it: the same store, the same rule for
/// tokens bound to a client certificate, and its scopes, never the token.
public struct TokenHolder: Sendable, Equatable {
    /// The token's name, for the request log.
    public var name: String
    /// The id part of the token (`glt_<id>_…`): what a check that it was not revoked since looks up.
    public var tokenId: String
    public var scopes: Set<TokenScope>

    /// Whether it may read: scope `read` or `admin`.
    public var mayRead: Bool { TokenScope.read.isGranted(by: scopes) }
}

extension GeoledgerAPI {
    /// The token `text` stands for, as the API would accept it from `request`'s connection; nil when it is
    /// malformed, unknown, revoked, or bound to a client certificate the connection did not present.
    public func tokenHolder(_ text: String, from request: HTTPRequest) throws -> TokenHolder? {
        guard let token = try pool.withConnection({ try tokens.authenticate(text, on: $0) }) else { return nil }
        if let bound = token.clientCertificateSHA256, request.clientCertificate?.sha256 != bound { return nil }
        let id = text.split(separator: "_", omittingEmptySubsequences: false)[1]
        return TokenHolder(name: token.name, tokenId: String(id), scopes: Set(token.scopes))
    }

    /// The scopes of the token of this id, nil once it was revoked.
    public func scopes(ofTokenId tokenId: String) throws -> Set<TokenScope>? {
        try pool.withConnection { connection in
            try connection.query("SELECT scopes FROM api_tokens WHERE token_id = $1", [tokenId]).first.map { row in
                Set(try row.decode(0, as: [String].self).compactMap(TokenScope.init(rawValue:)))
            }
        }
    }
}
