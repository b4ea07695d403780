import Output

extension APIToken {
    /// `token list`: names, scopes, when each was made and last used, the client certificate it is bound to; never a
    /// token.
    public static func table(_ tokens: [APIToken]) -> Table {
        Table(
            columns: [
                Column("name"), Column("scopes"), Column("createdAt", .time, title: "CREATED"),
                Column("lastUsedAt", .time, title: "LAST USED"), Column("clientCertificate", title: "CLIENT CERTIFICATE SHA-256"),
            ],
            rows: tokens.map { token in
                [.text(token.name), .text(token.scopes.map(\.rawValue).joined(separator: ",")), .time(token.createdAt),
                 Value(token.lastUsedAt), Value(token.clientCertificateSHA256)]
            })
    }
}
