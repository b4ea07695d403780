import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `serve`'s options for the console's map: a tile layer in its datum, the policy that lets its images in, and the
/// pages without Leaflet.
@Suite("serve's console options", .serialized)
struct ConsoleServeOptionsTests {
    @Test("--map-tiles with gcj02: the policy allows the tile host's images, the map's data names the tiles and draws in GCJ-02")
    func tiles() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url, arguments: [
                "--map-tiles", "https://{s}.tiles.example.cn/{z}/{x}/{y}.png", "--map-tiles-datum", "gcj02",
                "--map-tiles-attribution", "<b>Example</b> tiles",
            ])
            defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }
            #expect(try ConsoleTesting.post(
                [ConsoleTesting.merchantFix("M1", fix: ConsoleTesting.fix(lat: 31.2304, lon: 121.4737, accuracy: 20, minutesAgo: 5))],
                token: admin, port: server.port) == ["appended"])
            let (cookie, _) = try ConsoleTesting.signIn(admin, port: server.port)
            let page = try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Cookie": cookie])
            #expect(page.status == 200)
            let policy = page.headers["Content-Security-Policy"] ?? ""
            #expect(policy.contains("img-src 'self' https://*.tiles.example.cn;"), "\(policy)")
            let json = try #require(page.text.firstMatch(of: /<script type="application\/json" id="map-data">([^<]*)<\/script>/).map { String($0.1) })
            let data = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(data["datum"] as? String == "gcj02")
            let tiles = try #require(data["tiles"] as? [String: String])
            #expect(tiles["url"] == "https://{s}.tiles.example.cn/{z}/{x}/{y}.png")
            #expect(tiles["attribution"] == "<b>Example</b> tiles", "as text, for the script to show as text")
            let at = try #require((data["points"] as? [[String: Any]])?.first?["at"] as? [Double])
            // Shanghai moves about 500 m by the GCJ-02 offset: south-east in latitude, east in longitude.
            #expect(at[0] < 31.2304 - 0.001 && at[1] > 121.4737 + 0.003, "\(at)")
        }
    }

    @Test("a tile option without --map-tiles, a datum that is neither wgs84 nor gcj02, or a template that is not a tile URL is a usage error")
    func usage() throws {
        for arguments in [
            ["--map-tiles-datum", "gcj02"], ["--map-tiles-attribution", "x"],
            ["--map-tiles", "https://t.example/{z}/{x}/{y}.png", "--map-tiles-datum", "bd09"],
            ["--map-tiles", "javascript:alert(1)/{z}/{x}/{y}"], ["--map-tiles", "https://t.example/tile.png"],
        ] {
            let outcome = try GeoledgerProcess.run(["serve", "--listen", "127.0.0.1:0"] + arguments)
            #expect(outcome.status == 64, "\(arguments): \(outcome.status) \(outcome.stderr)")
            #expect(outcome.stderr.contains("--map-tiles"), "\(outcome.stderr)")
        }
    }

    @Test("without Leaflet the pages are served and say the map is off, and serve's log says why")
    func withoutLeaflet() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url, environment: ["GEOLEDGER_LEAFLET_DIR": "/nonexistent/leaflet"])
            #expect(try ConsoleTesting.post(
                [ConsoleTesting.merchantFix("M1", fix: ConsoleTesting.fix(lat: 31.2304, lon: 121.4737, accuracy: 20, minutesAgo: 5))],
                token: admin, port: server.port) == ["appended"])
            let (cookie, _) = try ConsoleTesting.signIn(admin, port: server.port)
            let page = try ConsoleTesting.request("GET", "/merchants/M1", port: server.port, headers: ["Cookie": cookie])
            #expect(page.status == 200)
            #expect(page.text.contains("apt-get install libjs-leaflet"))
            #expect(!page.text.contains("/console/leaflet.js"))
            #expect(try ConsoleTesting.request("GET", "/console/leaflet.js", port: server.port).status == 404)
            kill(server.pid, SIGTERM)
            #expect(try server.waitForExit(seconds: 15) == 0)
            #expect(server.standardError.contains("the console's map is off"), "\(server.standardError.prefix(2000))")
        }
    }
}
