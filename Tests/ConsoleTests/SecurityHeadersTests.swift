@testable import Console
import Geo
import HTTPServer
import Testing

@Suite("Content-Security-Policy and tile layers")
struct SecurityHeadersTests {
    @Test("only the server itself: no inline script or style, no frames, no other origin")
    func selfOnly() {
        let policy = SecurityHeaders.contentSecurityPolicy(tileSource: nil)
        let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map { part -> (String, String) in
            let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            return (String(words[0]), words.count > 1 ? String(words[1]) : "")
        })
        #expect(directives["default-src"] == "'none'")
        #expect(directives["script-src"] == "'self'")
        #expect(directives["style-src"] == "'self'")
        #expect(directives["img-src"] == "'self'")
        #expect(directives["connect-src"] == "'self'")
        #expect(directives["frame-ancestors"] == "'none'")
        #expect(directives["form-action"] == "'self'")
        #expect(!policy.contains("unsafe") && !policy.contains("data:") && !policy.contains("*"))
    }

    @Test("a tile layer's host is allowed for images, and for nothing else")
    func tiles() throws {
        let tiles = try MapTiles(urlTemplate: "https://{s}.tile.example.org/{z}/{x}/{y}.png", attribution: "© Example", datum: .wgs84)
        #expect(tiles.source == "https://*.tile.example.org")
        let policy = SecurityHeaders.contentSecurityPolicy(tileSource: tiles.source)
        #expect(policy.contains("img-src 'self' https://*.tile.example.org;"))
        #expect(policy.components(separatedBy: "tile.example.org").count == 2, "only img-src names it")
        var headers = HTTPHeaders()
        SecurityHeaders.apply(to: &headers, tileSource: nil)
        #expect(headers["X-Content-Type-Options"] == "nosniff")
        #expect(headers["Cache-Control"] == "no-store")
        #expect(headers["Referrer-Policy"] == "no-referrer")
    }

    @Test("a tile URL that is not http(s) with a host and {z}/{x}/{y}, or that could break the policy, is refused")
    func badTiles() {
        for template in [
            "javascript:alert(1)/{z}/{x}/{y}", "ftp://tiles.example/{z}/{x}/{y}.png", "https:///{z}/{x}/{y}",
            "https://tiles.example/{z}/{x}.png", "https://tiles.example;script-src */{z}/{x}/{y}", "https://a b/{z}/{x}/{y}",
            "https://tiles.example/{z}/{x}/{y}.png?'unsafe-inline'",
        ] {
            #expect(throws: MapTilesError.self, "\(template)") {
                try MapTiles(urlTemplate: template, attribution: "", datum: .wgs84)
            }
        }
        #expect(throws: MapTilesError.self) {
            try MapTiles(urlTemplate: "https://tiles.example/{z}/{x}/{y}.png", attribution: "", datum: .bd09)
        }
    }
}
