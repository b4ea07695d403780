import CommandLineArguments
import Foundation
import GeoledgerAPI
import Output

/// `token create|list|revoke`: the HTTP API's bearer tokens.
enum TokenCommands {
    static let all = [create, list, revoke]

    static let create = Command(
        words: ["token", "create"], summary: "make a bearer token for the HTTP API; it is printed once",
        help: """
            Usage: geoledger token create --name NAME --scopes SCOPE[,SCOPE...] [--client-cert SHA256]

            Makes a token for the HTTP API (geoledger serve) and prints it on standard output, once: only its
            SHA-256 is stored, so it cannot be shown again. Send it as 'Authorization: Bearer TOKEN'.
            With --client-cert the token alone is not enough: it is accepted only over mutual TLS (serve
            --tls-client-ca) from a client that presented that certificate, and answered 401 otherwise.

            Options:
              --name NAME       1–64 characters of A–Z, a–z, 0–9, _ . : - ; unique among the tokens
              --scopes LIST     comma-separated: ingest (POST /v1/events), read (every GET under /v1),
                                admin (both)
              --client-cert SHA256
                                the SHA-256 fingerprint of the client certificate the token is bound to:
                                64 hex digits, colons allowed, as printed by
                                openssl x509 -noout -fingerprint -sha256 -in client.pem

            Examples:
              geoledger token create --name nightly-upload --scopes ingest
              geoledger token create --name reporting --scopes read
              geoledger token create --name nightly-upload --scopes ingest \\
                  --client-cert "$(openssl x509 -noout -fingerprint -sha256 -in nightly.pem)"
              TOKEN=$(geoledger token create --name ops --scopes admin)
              curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/v1/merchants/M0001
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["name", "scopes", "client-cert"])
            guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
            guard let name = arguments.value("name") else { throw UsageError("say the token's name: --name NAME") }
            guard let scopesText = arguments.value("scopes") else {
                throw UsageError("say what the token may do: --scopes ingest,read or --scopes admin")
            }
            let scopes: Set<TokenScope>
            do {
                scopes = try TokenScope.parse(scopesText)
            } catch {
                throw UsageError("--scopes: \(error)")
            }
            let clientCertificate: String?
            do {
                clientCertificate = try arguments.value("client-cert").map(TokenStore.clientCertificateFingerprint)
            } catch {
                throw UsageError("--client-cert: \(error)")
            }
            let connection = try Settings.fromEnvironment().connect()
            defer { connection.close() }
            do {
                print(try TokenStore().create(
                    name: name, scopes: scopes, clientCertificateSHA256: clientCertificate, on: connection))
            } catch let error as APIError {
                throw CommandError(error.description)
            }
            return ExitCode.ok
        })

    static let list = Command(
        words: ["token", "list"], summary: "the HTTP API's tokens: names, scopes, created, last used",
        help: """
            Usage: geoledger token list [--format table|json|ndjson|csv]

            Every token's name, scopes, when it was made and when it was last used (noted at most once a
            minute), and the SHA-256 of the client certificate it is bound to (token create --client-cert).
            Never a token itself: only its SHA-256 is stored.

            Examples:
              geoledger token list
              geoledger token list --format json
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["format"])
            guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
            let format = Format(rawValue: try arguments.choice("format", from: ["table", "json", "ndjson", "csv"], default: "table"))!
            let connection = try Settings.fromEnvironment().connect()
            defer { connection.close() }
            let table = APIToken.table(try TokenStore().list(on: connection))
            var output = BufferedOutput()
            try output.append(try table.rendered(
                as: format, Presentation(width: format == .table ? Presentation.standardOutputWidth() : nil)))
            try output.flush()
            return ExitCode.ok
        })

    static let revoke = Command(
        words: ["token", "revoke"], summary: "remove a token of the HTTP API; it is refused from then on",
        help: """
            Usage: geoledger token revoke NAME

            Removes the token named NAME: requests bearing it are answered 401 from then on. Exit status 1
            when there is no such token.

            Example:
              geoledger token revoke nightly-upload
            """,
        run: { words in
            let arguments = try Arguments(words)
            guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
                throw UsageError("say which token: geoledger token revoke NAME")
            }
            let connection = try Settings.fromEnvironment().connect()
            defer { connection.close() }
            guard try TokenStore().revoke(name: name, on: connection) else {
                printError("no token named \(name)")
                return ExitCode.failure
            }
            print("revoked \(name)")
            return ExitCode.ok
        })
}
