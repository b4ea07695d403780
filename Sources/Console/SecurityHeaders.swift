import HTTPServer

/// The headers every answer of the console carries: a Content-Security-Policy that lets a page load scripts,
/// styles, data and images from this server alone (and images from the tile server, when there is one), run no
/// inline script and be framed by no one; no sniffing of types, no referrer, no caching of pages.
enum SecurityHeaders {
    /// The policy, with `tileSource` (`https://*.tile.example.org`) allowed for images when given.
    static func contentSecurityPolicy(tileSource: String?) -> String {
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'" + (tileSource.map { " " + $0 } ?? ""),
            "connect-src 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        ].joined(separator: "; ")
    }

    static func apply(to headers: inout HTTPHeaders, tileSource: String?, cacheable: Bool = false) {
        headers.set("Content-Security-Policy", contentSecurityPolicy(tileSource: tileSource))
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("Referrer-Policy", "no-referrer")
        headers.set("X-Frame-Options", "DENY")
        headers.set("Cache-Control", cacheable ? "public, max-age=3600" : "no-store")
    }
}
