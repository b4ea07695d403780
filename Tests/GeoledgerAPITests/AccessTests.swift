import DatabaseTestSupport
import Foundation
@testable import GeoledgerAPI
import HTTPServer
import Postgres
import Testing

@Suite("Tokens, scopes and the request log over HTTP")
struct AccessTests {
    @Test("no token or an unknown one is 401 with WWW-Authenticate; the wrong scope 403; admin may do both")
    func scopes() async throws {
        try await withAPI { server in
            let batch = [Submissions.merchantFix("M1")]
            let missing = try server.call("GET", "/v1/events")
            #expect(missing.status == 401)
            #expect(missing.errorCode == "unauthorized")
            #expect(missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
            let basic = try server.call("GET", "/v1/events", headers: ["Authorization": "Basic dXNlcjpwYXNz"])
            #expect(basic.status == 401)
            for unknown in ["nonsense", "glt_0000000000000000_" + String(repeating: "0", count: 64),
                            String(server.tokens["read"]!.dropLast()) + (server.tokens["read"]!.hasSuffix("0") ? "1" : "0")] {
                #expect(try server.call("GET", "/v1/events", token: unknown).status == 401, "\(unknown)")
            }
            #expect(try server.post(batch, token: "read").status == 403)
            #expect(try server.post(batch, token: "read").errorCode == "insufficient_scope")
            #expect(try server.call("GET", "/v1/events", token: "ingest").status == 403)
            #expect(try server.call("GET", "/v1/merchants/M1", token: "ingest").status == 403)
            #expect(try server.post(batch, token: "ingest").status == 200)
            #expect(try server.call("GET", "/v1/events", token: "read").status == 200)
            #expect(try server.post([Submissions.merchantFix("M2")], token: "admin").status == 200)
            #expect(try server.call("GET", "/v1/merchants/M1", token: "admin").status == 200)
            // Health, readiness and the document need no token.
            for path in ["/healthz", "/readyz", "/openapi.json", "/metrics"] {
                #expect(try server.call("GET", path).status == 200, "\(path)")
            }
        }
    }

    @Test(
        "a token followed by a NUL byte or a bare CR and more is 400 naming Authorization, not read as the token; nothing is stored",
        arguments: ["\0junk", "\rjunk"])
    func aTokenFollowedByANULByteOrABareCRIsRefused(suffix: String) async throws {
        try await withAPI { server in
            for (method, path, scope) in [("GET", "/v1/events", "read"), ("POST", "/v1/events", "ingest")] {
                let response = try server.call(
                    method, path, body: method == "POST" ? Array("[\(Submissions.merchantFix("M1"))]".utf8) : [],
                    headers: ["Authorization": "Bearer \(server.tokens[scope]!)\(suffix)"])
                #expect(response.status == 400, "\(method) \(response.text)")
                #expect(response.errorCode == "invalid_header")
                #expect(response.errorField == "Authorization")
            }
            #expect(try server.storedCount() == 0)
        }
    }

    @Test("a revoked token is refused; list shows names, scopes and last use, never a token; names are unique")
    func revokeAndList() async throws {
        try await withAPI { server in
            #expect(try server.call("GET", "/v1/events", token: "read").status == 200)
            let listed = try server.pool.withConnection { try TokenStore().list(on: $0) }
            #expect(listed.map(\.name) == ["admin", "ingest", "read"])
            #expect(listed.map(\.scopes) == [[.admin], [.ingest], [.read]])
            #expect(listed.first { $0.name == "read" }?.lastUsedAt != nil)
            #expect(listed.first { $0.name == "ingest" }?.lastUsedAt == nil)
            let stored = try server.pool.withConnection { connection in
                try connection.query("SELECT token_hash, token_id FROM api_tokens WHERE name = 'read'").first!.decode(0, as: Data.self)
            }
            #expect(stored.count == 32)
            #expect(!String(decoding: stored, as: UTF8.self).contains(server.tokens["read"]!))

            #expect(throws: APIError.self) {
                try server.pool.withConnection { try TokenStore().create(name: "read", scopes: [.read], on: $0) }
            }
            #expect(throws: APIError.self) {
                try server.pool.withConnection { try TokenStore().create(name: "bad name", scopes: [.read], on: $0) }
            }
            #expect(try server.pool.withConnection { try TokenStore().revoke(name: "read", on: $0) })
            #expect(try !server.pool.withConnection { try TokenStore().revoke(name: "read", on: $0) })
            #expect(try server.call("GET", "/v1/events", token: "read").status == 401)
        }
    }

    @Test("the application role may note a token's last use, but not change its hash, scopes or name")
    func applicationPrivileges() async throws {
        try await withAPI { server in
            try server.pool.withConnection { connection in
                try connection.query("UPDATE api_tokens SET last_used_at = now() WHERE name = 'read'")
                for statement in [
                    "UPDATE api_tokens SET scopes = ARRAY['admin'] WHERE name = 'read'",
                    "UPDATE api_tokens SET token_hash = token_hash WHERE name = 'read'",
                    "UPDATE api_tokens SET name = 'other' WHERE name = 'read'",
                ] {
                    let error = #expect(throws: PostgresError.self) { try connection.query(statement) }
                    #expect(error?.sqlState == "42501", "\(statement)")
                }
            }
        }
    }

    @Test("each request is one JSON log line: id (as X-Request-Id), method, route, status, bytes, duration, token name; never the token or the body")
    func requestLog() async throws {
        try await withAPI { server in
            let response = try server.post([Submissions.merchantFix("M1")], token: "ingest")
            let id = try #require(response.headers["X-Request-Id"])
            let notFound = try server.call("GET", "/nowhere")
            #expect(notFound.status == 404)
            #expect(server.log.all.contains { $0.contains(#""requestId":"\#(notFound.headers["X-Request-Id"]!)""#) })
            let line = try #require(server.log.all.first { $0.contains(id) })
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(entry["requestId"] as? String == id)
            #expect(entry["method"] as? String == "POST")
            #expect(entry["route"] as? String == "/v1/events")
            #expect(entry["status"] as? Int == 200)
            #expect(entry["bytes"] as? Int == response.body.count)
            #expect(entry["token"] as? String == "ingest")
            #expect(entry["durationMs"] is Double || entry["durationMs"] is Int)
            #expect(entry["time"] is String)
            for token in server.tokens.values {
                #expect(!server.log.all.contains { $0.contains(token) || $0.contains(String(token.suffix(64))) })
            }
            #expect(!server.log.all.contains { $0.contains("MerchantAddressFixed") })
        }
    }

    @Test("/metrics is open to loopback addresses only: IPv4 127/8, ::1, and 127/8 mapped into IPv6")
    func metricsAccess() throws {
        #expect(GeoledgerAPI.isLoopback("127.0.0.1"))
        #expect(GeoledgerAPI.isLoopback("::1"))
        #expect(GeoledgerAPI.isLoopback("::ffff:127.0.0.1"))
        #expect(!GeoledgerAPI.isLoopback("10.0.0.7"))
        #expect(!GeoledgerAPI.isLoopback("::ffff:10.0.0.7"))
    }
}
