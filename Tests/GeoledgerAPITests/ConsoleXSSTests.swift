import DatabaseTestSupport
import Foundation
import RawHTTPClient
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Texts meant to become markup or script, stored through the API wherever a submission carries text (addresses,
/// messages, notes, reasons, user and app names, ids as far as their rule lets them), then every page that shows
/// them opened in a real browser: each shows as text, no element or event handler is added, no script runs.
@Suite("The web console shows a corpus of markup and script as text", .serialized)
struct ConsoleXSSTests {
    /// Each sets window.__xss, opens an alert or hides the page if it ever runs or becomes markup.
    static let corpus = [
        "<script>window.__xss=1;alert(1)</script>",
        #"<img src=x onerror="window.__xss=2;alert(2)">"#,
        "javascript:window.__xss=3;alert(3)",
        #""><svg onload=window.__xss=4>"#,
        "<b onmouseover=window.__xss=5>bold</b>",
        "</script><script>window.__xss=6</script>",
        #"<iframe src="javascript:window.__xss=7"></iframe>"#,
        #"<a href="javascript:window.__xss=8">click</a>"#,
        "\u{202E}gnp.exe\u{202C} <style>body{display:none}</style>",
        "{{constructor.constructor('window.__xss=10')()}}",
        "&lt;script&gt;window.__xss=11&lt;/script&gt;",
        "\u{200F}\u{202B}مرحبا <script>window.__xss=12</script>\u{202C}",
    ]
    /// An id as the id rule allows it, which reads like a URL scheme.
    static let merchant = "javascript:M.1"
    static let terminal = "T-XSS.1"
    static let visit = "V-XSS.1"
    static let enterprise = "E-XSS.1"

    static func corpusData() -> [String] {
        let c = corpus
        var address = ConsoleTesting.Address()
        (address.formatted, address.poiName, address.street, address.district, address.city) = (c[0], c[1], c[2], c[3], c[8])
        var other = ConsoleTesting.Address()
        (other.formatted, other.poiName, other.street, other.district, other.city) = (c[11], c[10], c[9], c[7], c[6])
        // Pages show an address by its formatted text (its parts only without one), as show does.
        let formatted = { (text: String) in var address = ConsoleTesting.Address(); address.formatted = text; return address }
        let actor = ConsoleTesting.actor(userId: c[4], app: c[5])
        return [
            ConsoleTesting.merchantFix(merchant, fix: ConsoleTesting.fix(lat: 31.2304, lon: 121.4737, accuracy: 20, minutesAgo: 100, address: address), actor: actor),
            ConsoleTesting.merchantFix(merchant, fix: ConsoleTesting.fix(lat: 31.2404, lon: 121.4837, accuracy: 900, minutesAgo: 90, address: other), actor: actor),
            ConsoleTesting.terminalBound(terminal, merchant: merchant, fix: ConsoleTesting.fix(lat: 31.2305, lon: 121.4738, accuracy: 10, minutesAgo: 80, address: formatted(c[1]))),
            ConsoleTesting.terminalLocated(terminal, fix: ConsoleTesting.fix(lat: 31.3305, lon: 121.5738, accuracy: 10, minutesAgo: 70, address: other)),
            ConsoleTesting.terminalUnbound(terminal, merchant: merchant, reason: c[8]),
            ConsoleTesting.terminalBound(terminal, merchant: merchant, fix: ConsoleTesting.fix(lat: 31.3305, lon: 121.5738, accuracy: 10, minutesAgo: 50, address: nil)),
            ConsoleTesting.visit(visit, merchant: merchant, visitor: "sales-17", fix: ConsoleTesting.fix(lat: 31.9, lon: 121.9, accuracy: 30, minutesAgo: 40, address: formatted(c[3])), note: c[7], actor: actor),
            ConsoleTesting.failure(merchant: merchant, code: 12, message: c[6] + " " + c[10], minutesAgo: 30, actor: actor),
            #"{"eventId":"\#(UUID().uuidString)","type":"EnterpriseAddressFixed","enterpriseId":"\#(enterprise)","fix":\#(ConsoleTesting.fix(lat: 31.2, lon: 121.4, accuracy: 40, minutesAgo: 20, address: formatted(c[9]))),"actor":\#(actor)}"#,
        ]
    }

    @Test("every page shows the stored corpus as text: no element or event handler added, no script run")
    func corpusShownAsText() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url)
            defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }
            let statuses = try ConsoleTesting.post(Self.corpusData(), token: admin, port: server.port)
            #expect(statuses.allSatisfy { $0 == "appended" }, "\(statuses)")

            // Text that is not UTF-8 is refused by the API, so no page ever meets it: raw bytes that are not UTF-8
            // refuse the batch, and a lone surrogate escaped in JSON is an invalid item.
            var bytes = Array(#"[{"eventId":"\#(UUID().uuidString)","type":"MerchantAddressFixed","merchantId":"M-BROKEN.1","purpose":"onboarding","fix":{"lat":31.2,"lon":121.4,"datum":"wgs84","horizontalAccuracy":20,"accuracyAuthorization":"full","provider":"amap","capturedAt":"\#(ConsoleTesting.time(minutesAgo: 10))","address":{"formatted":""#.utf8)
            bytes += [0xC3, 0x28, 0xFF, 0xFE]
            bytes += Array(#""}},"actor":{"userId":"u"}}]"#.utf8)
            let client = try RawClient(port: server.port, timeout: .seconds(30))
            try client.send(Array((
                "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(admin)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n").utf8) + bytes)
            let refused = try client.readResponse()
            #expect(refused.status != 200 || (try? refused.statuses) == ["invalid"], "\(refused.status) \(refused.text)")
            let surrogate = ConsoleTesting.merchantFix(
                "M-BROKEN.2", fix: ConsoleTesting.fix(lat: 31.2, lon: 121.4, accuracy: 20, minutesAgo: 10)
            ).replacingOccurrences(of: "第一百货", with: #"\udc80\ud800"#)
            #expect(try ConsoleTesting.post([surrogate], token: admin, port: server.port) == ["invalid"])

            let reader = try ConsoleTesting.token("reader", scopes: "read", url: url)
            let pages = [
                "/", "/search?q=javascript", "/search?q=" + Self.corpus[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                "/merchants/\(Self.merchant)", "/terminals/\(Self.terminal)", "/visits/\(Self.visit)", "/enterprises/\(Self.enterprise)",
                "/reports",
                "/reports/providers?app=" + Self.corpus[5].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                "/reports/terminal-drift?from=" + Self.corpus[2].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            ] + ["region-mismatch", "accuracy", "providers", "terminal-drift", "visit-distance", "outside-region", "stale", "daily"]
                .map { "/reports/\($0)" + ($0 == "terminal-drift" || $0 == "visit-distance" ? "?threshold=0" : "") }
            let texts = Self.corpus.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\u{200F}\u{202B}\u{202C}\u{202E}")) }
            let data = try JSONSerialization.data(withJSONObject: pages)
            let textData = try JSONSerialization.data(withJSONObject: texts)
            let report = try ConsoleTesting.runBrowser(
                "xss_walk.py", ["http://127.0.0.1:\(server.port)", reader, String(decoding: data, as: UTF8.self), String(decoding: textData, as: UTF8.self)])
            let results = try #require(report["pages"] as? [String: [String: Any]])
            #expect(results.count == pages.count)
            // The elements the console and Leaflet make; any other came from the corpus.
            let allowed: Set<String> = [
                "html", "head", "meta", "title", "link", "script", "body", "header", "a", "form", "input", "button", "nav",
                "label", "select", "option", "span", "main", "h1", "h2", "p", "section", "dl", "dt", "dd", "table", "caption",
                "thead", "tbody", "tr", "th", "td", "bdi", "ul", "li", "div", "svg", "g", "path", "strong",
            ]
            var shown = Set<String>()
            for (page, found) in results {
                #expect(found["xss"] is NSNull, "\(page): a script of the corpus ran: window.__xss = \(found["xss"] ?? "")")
                #expect((found["alerts"] as? [String]) == [], "\(page): alerts \(found["alerts"] ?? "")")
                #expect((found["handlers"] as? [String]) == [], "\(page): event handlers \(found["handlers"] ?? "")")
                #expect(found["javascriptLinks"] as? Int == 0, "\(page)")
                #expect(found["hidden"] as? Bool == false, "\(page): a style of the corpus hid the page")
                let names = Set(found["names"] as? [String] ?? [])
                #expect(names.subtracting(allowed).isEmpty, "\(page): elements \(names.subtracting(allowed).sorted())")
                shown.formUnion(found["shown"] as? [String] ?? [])
            }
            // Each text of the corpus shows, as the text it is, on some page.
            #expect(shown == Set(texts), "not shown as text: \(Set(texts).subtracting(shown))")
            // The merchant's page: its two addresses, the user and app of its fixes, its failure's message.
            let merchantPage = try #require(results["/merchants/\(Self.merchant)"])
            #expect(Set(merchantPage["shown"] as? [String] ?? []) == Set([0, 4, 5, 6, 10, 11].map { texts[$0] }), "\(merchantPage["shown"] ?? "")")
            // The browser's console: nothing refused or failed but the two pages answered 400 on purpose (an id that
            // is none, a time that is none).
            let errors = (report["errors"] as? [String] ?? []).filter { !$0.contains("status of 400") }
            #expect(errors == [], "\(errors)")
            #expect((report["errors"] as? [String] ?? []).count - errors.count == 2)
        }
    }
}
