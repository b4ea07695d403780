import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Who may open what: without a session every page but sign-in sends the browser to sign in; a session opens the
/// console's pages and no route of the API, a token opens the API's routes and no page of the console; only a token
/// that may read signs in, and revoking it ends its sessions.
@Suite("The web console's doors", .serialized)
struct ConsoleAccessTests {
    static let pages = [
        "/", "/search?q=M1", "/merchants/M1", "/terminals/T1", "/enterprises/E1", "/visits/V1", "/reports",
        "/reports/terminal-drift", "/reports/terminal-drift/download?format=csv",
    ]

    @Test("without a session every page but sign-in redirects to it; with a token instead of a session too")
    func redirects() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url)
            defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }
            for page in Self.pages {
                for headers in [[:], ["Authorization": "Bearer \(admin)"], ["Cookie": "geoledger_session=made-up"]] {
                    let response = try ConsoleTesting.request("GET", page, port: server.port, headers: headers)
                    #expect(response.status == 303, "\(page) \(headers.keys.sorted()): \(response.status)")
                    #expect(response.headers["Location"]?.hasPrefix("/sign-in?next=") == true, "\(page): \(response.headers["Location"] ?? "")")
                    #expect(response.headers["Set-Cookie"] == nil)
                }
            }
            for (method, page) in [("POST", "/sign-out"), ("POST", "/time-zone")] {
                let response = try ConsoleTesting.request(method, page, port: server.port, body: "csrf=x")
                #expect(response.status == 303, "\(page)")
            }
            let signIn = try ConsoleTesting.request("GET", "/sign-in", port: server.port)
            #expect(signIn.status == 200)
            #expect(signIn.text.contains("name=\"token\""))
            let policy = signIn.headers["Content-Security-Policy"] ?? ""
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"), "\(policy)")
            #expect(signIn.headers["X-Frame-Options"] == "DENY")
            // The files the pages load are open: they hold no data.
            for file in ["/console/console.js", "/console/console.css", "/console/outlines.json", "/console/leaflet.js"] {
                #expect(try ConsoleTesting.request("GET", file, port: server.port).status == 200, "\(file)")
            }
        }
    }

    @Test("only a token that may read signs in; the session opens pages but not the API, and ends at sign-out and when its token is revoked")
    func scopes() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url)
            defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }
            let statuses = try ConsoleTesting.post(
                [ConsoleTesting.merchantFix("M1", fix: ConsoleTesting.fix(lat: 31.2304, lon: 121.4737, accuracy: 20, minutesAgo: 5))],
                token: admin, port: server.port)
            #expect(statuses == ["appended"])
            let ingest = try ConsoleTesting.token("ingester", scopes: "ingest", url: url)
            let reader = try ConsoleTesting.token("reader", scopes: "read", url: url)

            // An ingest token is known but may not read: 403, no session. An unknown one: 401.
            let refused = try ConsoleTesting.request("POST", "/sign-in", port: server.port, body: ConsoleTesting.form([("token", ingest)]))
            #expect(refused.status == 403)
            #expect(refused.headers["Set-Cookie"] == nil)
            #expect(refused.text.contains("ingester") && !refused.text.contains(ingest), "the page names the token, never shows it")
            let unknown = try ConsoleTesting.request(
                "POST", "/sign-in", port: server.port, body: ConsoleTesting.form([("token", "glt_0000000000000000_" + String(repeating: "0", count: 64))]))
            #expect(unknown.status == 401)
            #expect(unknown.headers["Set-Cookie"] == nil)

            let (cookie, setCookie) = try ConsoleTesting.signIn(reader, port: server.port)
            let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.contains("HttpOnly") && attributes.contains("SameSite=Strict") && attributes.contains("Path=/"), "\(setCookie)")
            #expect(attributes.contains { $0.hasPrefix("Max-Age=") })
            #expect(!attributes.contains("Secure"), "plain HTTP: the cookie could not come back if it were Secure")
            #expect(!cookie.contains(reader))

            let page = try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Cookie": cookie])
            #expect(page.status == 200)
            #expect(page.text.contains("Merchant M1"))
            #expect(!page.text.contains(reader), "the token is not in the page")
            let redirectAfter = try ConsoleTesting.request(
                "POST", "/sign-in", port: server.port, body: ConsoleTesting.form([("token", reader), ("next", "//evil.example/x")]))
            #expect(redirectAfter.headers["Location"] == "/", "sign-in goes back only to a page of this server")

            // The session is no key to the API, and a token none to the pages.
            for route in ["/v1/merchants/M1", "/v1/events?after=0", "/v1/reports/terminal-drift"] {
                let api = try ConsoleTesting.request("GET", route, port: server.port, headers: ["Cookie": cookie])
                #expect(api.status == 401, "\(route) with the session's cookie: \(api.status)")
            }
            let post = try ServeProcess.post([], token: reader, port: server.port)
            #expect(post.status == 403, "a read token posts nothing, through either door")
            let readByToken = try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Authorization": "Bearer \(reader)"])
            #expect(readByToken.status == 303)

            // The forms that change the session need its secret.
            let forged = try ConsoleTesting.request("POST", "/sign-out", port: server.port, headers: ["Cookie": cookie], body: "csrf=guess")
            #expect(forged.status == 403)
            #expect(try ConsoleTesting.request("GET", "/", port: server.port, headers: ["Cookie": cookie]).status == 200, "still signed in")
            let home = try ConsoleTesting.request("GET", "/", port: server.port, headers: ["Cookie": cookie]).text
            let secret = try #require(home.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let signOut = try ConsoleTesting.request(
                "POST", "/sign-out", port: server.port, headers: ["Cookie": cookie], body: ConsoleTesting.form([("csrf", secret)]))
            #expect(signOut.status == 303)
            #expect(signOut.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
            #expect(try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Cookie": cookie]).status == 303)

            // Revoking the token ends the sessions made from it.
            let (second, _) = try ConsoleTesting.signIn(reader, port: server.port)
            #expect(try ConsoleTesting.request("GET", "/reports", port: server.port, headers: ["Cookie": second]).status == 200)
            let revoked = try GeoledgerProcess.run(["token", "revoke", "reader"], environment: ["DATABASE_URL": url])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            #expect(try ConsoleTesting.request("GET", "/reports", port: server.port, headers: ["Cookie": second]).status == 303)

            // An admin token signs in too.
            let (third, _) = try ConsoleTesting.signIn(admin, port: server.port)
            #expect(try ConsoleTesting.request("GET", "/terminals/T1", port: server.port, headers: ["Cookie": third]).status == 404)
            #expect(try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Cookie": third]).status == 200)
        }
    }
}
