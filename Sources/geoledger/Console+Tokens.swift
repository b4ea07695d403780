import Console
import GeoledgerAPI

extension Console.Tokens {
    /// The API's token store as the console's sign-in: the same tokens, the same client-certificate rule.
    init(api: GeoledgerAPI) {
        self.init(
            holder: { token, request in
                try api.tokenHolder(token, from: request).map { holder in
                    Console.TokenHolder(
                        name: holder.name, tokenId: holder.tokenId, mayRead: holder.mayRead,
                        scopes: holder.scopes.sorted().map(\.rawValue).joined(separator: ","))
                }
            },
            mayStillRead: { tokenId in
                guard let scopes = try api.scopes(ofTokenId: tokenId) else { return false }
                return scopes.contains(.read) || scopes.contains(.admin)
            })
    }
}
