import Foundation
import GeoledgerAPI
import HTTPServer
import Testing

@Suite("Current state, health, metrics and the OpenAPI document over HTTP")
struct StateAndServiceRoutesTests {
    @Test("GET /v1/merchants/{id} and /v1/terminals/{id}: show's JSON; 404 for an unknown id, 400 for a malformed one")
    func currentState() async throws {
        try await withAPI { server in
            #expect(try server.post([Submissions.merchantFix("M1"), Submissions.terminalBound("T1", merchant: "M1")]).status == 200)
            let merchant = try server.call("GET", "/v1/merchants/M1", token: "read")
            #expect(merchant.status == 200, "\(merchant.text)")
            let document = try merchant.object
            #expect(document["merchantId"] as? String == "M1")
            #expect((document["addressPosition"] as? [String: Any])?["accuracy"] as? String == "precise")
            #expect((document["terminals"] as? [[String: Any]])?.map { $0["terminalId"] as? String } == ["T1"])

            let terminal = try server.call("GET", "/v1/terminals/T1", token: "read")
            #expect(terminal.status == 200, "\(terminal.text)")
            #expect(try terminal.object["merchantId"] as? String == "M1")

            let unknown = try server.call("GET", "/v1/merchants/M404", token: "read")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
            #expect(try server.call("GET", "/v1/terminals/T404", token: "read").status == 404)
            let malformed = try server.call("GET", "/v1/merchants/M%20one", token: "read")
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "invalid_id")
            #expect(try server.call("GET", "/v1/terminals/" + String(repeating: "x", count: 65), token: "read").status == 400)
        }
    }

    @Test("healthz, readyz; metrics count requests by route and status, latencies, events by type and status, the pool")
    func healthAndMetrics() async throws {
        try await withAPI { server in
            #expect(try server.call("GET", "/healthz").text == #"{"status":"ok"}"#)
            #expect(try server.call("GET", "/readyz").text == #"{"status":"ready"}"#)
            _ = try server.post([Submissions.merchantFix("M1"), Submissions.merchantFix("M2", lat: 100)])
            _ = try server.call("GET", "/v1/events")
            let metrics = try server.call("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.text
            for line in [
                #"geoledger_http_requests_total{route="/v1/events",method="POST",status="200"} 1"#,
                #"geoledger_http_requests_total{route="/v1/events",method="GET",status="401"} 1"#,
                #"geoledger_http_requests_total{route="/healthz",method="GET",status="200"} 1"#,
                #"geoledger_http_request_duration_seconds_count{route="/v1/events"} 2"#,
                #"geoledger_events_total{type="MerchantAddressFixed",status="appended"} 1"#,
                #"geoledger_events_total{type="MerchantAddressFixed",status="invalid"} 1"#,
                "geoledger_db_pool_connections_in_use 0",
                "geoledger_db_pool_connections_max 4",
                "geoledger_database_errors_total 0",
            ] {
                #expect(text.contains(line + "\n"), "\(line)")
            }
            #expect(text.contains(#"geoledger_http_request_duration_seconds_bucket{route="/v1/events",le="+Inf"} 2"#))
        }
    }

    @Test("the OpenAPI 3.1 document describes every route the router serves, each method, path parameter and scope")
    func openAPI() async throws {
        try await withAPI { server in
            let response = try server.call("GET", "/openapi.json")
            #expect(response.status == 200)
            let document = try response.object
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let table = server.api.router.table
            #expect(!table.isEmpty)
            for (pattern, methods) in table {
                for method in methods {
                    let operation = paths[pattern]?[method.rawValue.lowercased()] as? [String: Any]
                    #expect(operation != nil, "\(method) \(pattern) is served but missing from /openapi.json")
                    let parameters = (operation?["parameters"] as? [[String: Any]]) ?? []
                    for name in pattern.split(separator: "/") where name.hasPrefix("{") {
                        #expect(parameters.contains { $0["name"] as? String == String(name.dropFirst().dropLast()) && $0["in"] as? String == "path" })
                    }
                }
            }
            #expect(paths.count == table.count)
            let post = paths["/v1/events"]?["post"] as? [String: Any]
            #expect(post?["x-scope"] as? String == "ingest")
            #expect((post?["responses"] as? [String: Any])?.keys.sorted() == ["200", "400", "401", "403", "408", "409", "413", "414", "415", "422", "429", "431", "500", "503"])
        }
    }
}
