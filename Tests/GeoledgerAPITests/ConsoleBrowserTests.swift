import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The web console in a real browser: Debian's chromium, headless, driven by Selenium through chromium-driver
/// (Tests/ConsoleBrowser/console_walk.py), against `geoledger serve` on a fresh database.
@Suite("The web console in a browser", .serialized)
struct ConsoleBrowserTests {
    static let merchant = "M-WALK.1"

    /// A merchant with 130 address fixes (precise, approximate and unusable), two bound terminals, one of them
    /// 160 km away, a visit and failed attempts.
    static func walkData() -> [String] {
        var lines: [String] = []
        for index in 0..<130 {
            let accuracy = index % 10 == 3 ? 800.0 : (index % 10 == 7 ? 6000.0 : 25.0)
            lines.append(ConsoleTesting.merchantFix(
                merchant,
                fix: ConsoleTesting.fix(
                    lat: 31.2304 + Double(index % 13) * 0.0004, lon: 121.4737 + Double(index % 11) * 0.0004,
                    accuracy: accuracy, minutesAgo: 200 + index)))
        }
        lines.append(ConsoleTesting.terminalBound("T-WALK.1", merchant: merchant, fix: ConsoleTesting.fix(lat: 31.2306, lon: 121.4739, accuracy: 15, minutesAgo: 150, address: nil)))
        lines.append(ConsoleTesting.terminalBound("T-WALK.2", merchant: merchant, fix: ConsoleTesting.fix(lat: 31.2307, lon: 121.4741, accuracy: 15, minutesAgo: 150, address: nil)))
        // Hangzhou: the first terminal drifted about 160 km.
        lines.append(ConsoleTesting.terminalLocated("T-WALK.1", fix: ConsoleTesting.fix(lat: 30.2741, lon: 120.1551, accuracy: 12, minutesAgo: 20, address: nil)))
        lines.append(ConsoleTesting.visit("V-WALK.1", merchant: merchant, visitor: "sales-17", fix: ConsoleTesting.fix(lat: 31.2310, lon: 121.4740, accuracy: 30, minutesAgo: 60), note: "checked the sign"))
        lines.append(ConsoleTesting.failure(merchant: merchant, code: 12, message: "permission denied", minutesAgo: 30))
        lines.append(ConsoleTesting.failure(merchant: merchant, code: 4, message: "network", minutesAgo: 31))
        return lines
    }

    @Test("sign in, search a merchant, its map, fixes and terminals, the history's next page, the drift report and its CSV, the time zone, sign out")
    func walk() async throws {
        try await ServeProcess.onFreshDatabase { url, admin in
            let server = try ServeProcess(url: url)
            defer { kill(server.pid, SIGTERM); _ = try? server.waitForExit(seconds: 15) }
            let statuses = try ConsoleTesting.post(Self.walkData(), token: admin, port: server.port)
            #expect(statuses.allSatisfy { $0 == "appended" }, "\(statuses)")
            let reader = try ConsoleTesting.token("reader", scopes: "read", url: url)
            let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-console-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: downloads) }
            var arguments = ["http://127.0.0.1:\(server.port)", reader, Self.merchant, downloads.path]
            if let shots = ProcessInfo.processInfo.environment["GEOLEDGER_CONSOLE_SCREENSHOTS"] { arguments.append(shots) }
            let found = try ConsoleTesting.runBrowser("console_walk.py", arguments)

            #expect((found["startRedirectedTo"] as? String)?.hasPrefix("/sign-in?next=%2F") == true, "\(found)")
            #expect(found["afterSignIn"] as? String == "/")
            let cookies = found["cookies"] as? [[String: Any]] ?? []
            #expect(cookies.count == 1)
            #expect(cookies.first?["name"] as? String == "geoledger_session")
            #expect(cookies.first?["httpOnly"] as? Bool == true)
            #expect(cookies.first?["sameSite"] as? String == "Strict")
            #expect(found["tokenInPage"] as? Bool == false)
            #expect(found["tokenInStorage"] as? Bool == false)
            #expect((found["logStatus"] as? [String])?.first == "\(statuses.count)", "the log head is every event stored")

            #expect((found["searchResults"] as? [String])?.contains(Self.merchant) == true, "\(found["searchResults"] ?? "")")
            #expect(found["merchantUrl"] as? String == "/merchants/\(Self.merchant)")
            #expect(found["merchantTitle"] as? String == "Merchant \(Self.merchant)")
            #expect(found["addressMarkers"] as? Int == 1)
            #expect(found["terminalMarkers"] as? Int == 2)
            #expect(found["lines"] as? Int == 2, "a line from each terminal to the address position")
            #expect((found["accuracyCircles"] as? Int ?? 0) >= 4)
            // The history page's fixes (its newest 100 rows less the 2 failed attempts) are each drawn as a marker or
            // inside a cluster, beside the address position, the latest fix and the 2 terminals.
            let clusters = (found["clusters"] as? [String] ?? []).compactMap(Int.init)
            let markers = found["markers"] as? Int ?? 0
            #expect(found["historyLocated"] as? Int == 98)
            #expect(!clusters.isEmpty, "98 fixes close together are clustered")
            #expect(clusters.reduce(0, +) + markers - 4 == 98, "clusters \(clusters), markers \(markers)")
            #expect((found["addressPosition"] as? [String])?.contains("precise") == true)
            #expect((found["addressPosition"] as? [String])?.contains("25.0 m") == true, "metres to 0.1 as show writes them")
            #expect((found["latestFix"] as? [String])?.isEmpty == false)
            #expect(found["boundTerminals"] as? [String] == ["T-WALK.1", "T-WALK.2"])
            let drift = (found["drifts"] as? [String])?.first ?? ""
            #expect(drift.hasSuffix(" m") && (Double(drift.dropLast(2)) ?? 0) > 100_000, "\(drift)")
            #expect((found["failureCategories"] as? [String])?.count == 2)

            #expect(found["historyRows"] as? Int == 100)
            #expect(found["olderRows"] as? Int == 32, "130 address fixes and 2 failed attempts: 132 rows")
            #expect(found["olderHasNext"] as? Bool == false)
            #expect(found["historyFirst"] as? [String] != found["olderFirst"] as? [String])
            #expect((found["olderUrl"] as? String)?.contains("cursor=") == true)

            #expect((found["terminalFacts"] as? [String])?.contains(Self.merchant) == true)
            #expect(found["terminalBindings"] as? [String] == ["bound"])
            #expect(found["terminalLines"] as? Int == 1)
            #expect((found["terminalPageMarkers"] as? Int ?? 0) >= 3, "the terminal, its latest fix and its merchant's address")

            #expect(found["driftRows"] as? [String] == ["T-WALK.1"])
            #expect((found["driftMarkers"] as? Int ?? 0) >= 2)
            #expect(found["driftLines"] as? Int == 1)
            let csv = found["csv"] as? String ?? ""
            #expect(csv.hasPrefix("terminalId,merchantId,drift,"), "\(csv)")
            #expect(csv.contains("T-WALK.1,\(Self.merchant),"))

            #expect((found["historyFirst"] as? [String])?.first?.hasSuffix("+08") == true, "Asia/Shanghai by default")
            #expect((found["utcFirst"] as? [String])?.first?.hasSuffix("+00") == true, "UTC once picked")
            #expect((found["zoneOptions"] as? [String])?.contains("UTC") == true)

            #expect((found["afterSignOut"] as? String)?.hasPrefix("/sign-in") == true)
            #expect((found["merchantAfterSignOut"] as? String)?.hasPrefix("/sign-in?next=%2Fmerchants%2FM-WALK.1") == true, "\(found)")
            #expect((found["reportAfterSignOut"] as? String)?.hasPrefix("/sign-in?next=") == true)
            #expect(found["errors"] as? [String] == [], "the browser's console: \(found["errors"] ?? "")")
        }
    }
}
