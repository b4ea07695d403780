import Foundation
import HTTPServer

/// The files the pages load, read once at start and answered from memory: Leaflet as Debian's libjs-leaflet
/// installs it (nothing is fetched from elsewhere, at build or run time), the console's own script and style, and the
/// base layer's outlines.
struct Assets: Sendable {
    struct File: Sendable {
        let contentType: String
        let body: [UInt8]
    }

    /// Leaflet's files by name (`leaflet.js`, `leaflet.css`, `images/layers.png`, ...); nil when Leaflet is not
    /// installed, and the pages say so where the map would be.
    let leaflet: [String: File]?
    let files: [String: File]

    init(leafletDirectory: String, outlines: String) {
        var leaflet: [String: File] = [:]
        let directory = URL(fileURLWithPath: leafletDirectory)
        if let script = try? Data(contentsOf: directory.appendingPathComponent("leaflet.js")),
           let style = try? Data(contentsOf: directory.appendingPathComponent("leaflet.css")) {
            leaflet["leaflet.js"] = File(contentType: "text/javascript; charset=utf-8", body: Array(script))
            leaflet["leaflet.css"] = File(contentType: "text/css; charset=utf-8", body: Array(style))
            let images = directory.appendingPathComponent("images")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? [] where name.hasSuffix(".png") {
                if let data = try? Data(contentsOf: images.appendingPathComponent(name)) {
                    leaflet["images/" + name] = File(contentType: "image/png", body: Array(data))
                }
            }
        }
        self.leaflet = leaflet.isEmpty ? nil : leaflet
        var files = self.leaflet ?? [:]
        files["console.js"] = File(contentType: "text/javascript; charset=utf-8", body: Array(ConsoleScript.text.utf8))
        files["console.css"] = File(contentType: "text/css; charset=utf-8", body: Array(ConsoleStyle.text.utf8))
        files["outlines.json"] = File(contentType: "application/geo+json", body: Array(outlines.utf8))
        self.files = files
    }

    /// The file, cacheable for an hour; 404 when there is none of that name.
    func response(_ name: String, tileSource: String?) -> HTTPResponse {
        guard let file = files[name] else {
            var response = HTTPResponse(
                status: .notFound, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array("Not found\n".utf8))
            SecurityHeaders.apply(to: &response.headers, tileSource: tileSource)
            return response
        }
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": file.contentType], body: file.body)
        SecurityHeaders.apply(to: &response.headers, tileSource: tileSource, cacheable: true)
        return response
    }
}
