import DatabaseTestSupport
import Foundation
import RawHTTPClient
import HTTPTestSupport
import Testing

/// What the console's tests store through the API and how they talk to the pages: submissions with chosen texts, a
/// request with a session cookie, and the Python scripts that drive a real browser (Tests/ConsoleBrowser).
enum ConsoleTesting {
    /// Where `Tests/ConsoleBrowser` is.
    static let browserFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ConsoleBrowser")

    /// `capturedAt` some minutes before now, in UTC: within what the API accepts.
    static func time(minutesAgo: Int) -> String {
        Date().addingTimeInterval(Double(-60 * minutesAgo - 3600))
            .formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    struct Address {
        var formatted = "上海市黄浦区南京东路100号"
        var poiName = "第一百货"
        var street = "南京东路"
        var district = "黄浦区"
        var city = "上海市"

        var json: String {
            #"{"country":"中国","province":"上海市","city":\#(quoted(city)),"district":\#(quoted(district)),"street":\#(quoted(street)),"#
                + #""streetNumber":"100号","poiName":\#(quoted(poiName)),"formatted":\#(quoted(formatted)),"adcode":"310101"}"#
        }
    }

    static func fix(lat: Double, lon: Double, accuracy: Double, minutesAgo: Int, address: Address? = Address(), provider: String = "amap") -> String {
        #"{"lat":\#(lat),"lon":\#(lon),"datum":"wgs84","horizontalAccuracy":\#(accuracy),"accuracyAuthorization":"full","#
            + #""provider":"\#(provider)","capturedAt":"\#(time(minutesAgo: minutesAgo))""#
            + (address.map { #","address":\#($0.json)"# } ?? "") + #","claimedInRegion":true}"#
    }

    static func actor(userId: String = "sales-17", app: String = "onboarding") -> String {
        #"{"userId":\#(quoted(userId)),"app":\#(quoted(app)),"appVersion":"5.2.0","deviceId":"A1B2","os":"iOS 17.2"}"#
    }

    static func merchantFix(_ merchant: String, fix: String, actor: String = actor()) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"MerchantAddressFixed","merchantId":"\#(merchant)","purpose":"onboarding","fix":\#(fix),"actor":\#(actor)}"#
    }

    static func terminalBound(_ terminal: String, merchant: String, fix: String) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"TerminalBound","terminalId":"\#(terminal)","merchantId":"\#(merchant)","fix":\#(fix),"actor":\#(actor(app: "terminal-agent"))}"#
    }

    static func terminalLocated(_ terminal: String, fix: String) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"TerminalLocated","terminalId":"\#(terminal)","fix":\#(fix),"actor":\#(actor(app: "terminal-agent"))}"#
    }

    static func terminalUnbound(_ terminal: String, merchant: String, reason: String) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"TerminalUnbound","terminalId":"\#(terminal)","merchantId":"\#(merchant)","reason":\#(quoted(reason)),"actor":\#(actor(app: "terminal-agent"))}"#
    }

    static func visit(_ visit: String, merchant: String, visitor: String, fix: String, note: String, actor: String = actor()) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"VisitRecorded","visitId":"\#(visit)","merchantId":"\#(merchant)","visitorId":\#(quoted(visitor)),"fix":\#(fix),"note":\#(quoted(note)),"actor":\#(actor)}"#
    }

    static func failure(merchant: String, code: Int, message: String, minutesAgo: Int, actor: String = actor()) -> String {
        #"{"eventId":"\#(UUID().uuidString)","type":"LocationFailed","merchantId":"\#(merchant)","purpose":"onboarding","provider":"amap","errorCode":\#(code),"errorMessage":\#(quoted(message)),"capturedAt":"\#(time(minutesAgo: minutesAgo))","actor":\#(actor)}"#
    }

    /// Posts the submissions in one batch and returns each one's status.
    static func post(_ lines: [String], token: String, port: Int) throws -> [String] {
        let response = try ServeProcess.post(lines, token: token, port: port)
        guard response.status == 200 else { throw RawClient.Failure(description: "POST answered \(response.status): \(response.text)") }
        return try response.statuses
    }

    static func token(_ name: String, scopes: String, url: String) throws -> String {
        let created = try GeoledgerProcess.run(["token", "create", "--name", name, "--scopes", scopes], environment: ["DATABASE_URL": url])
        guard created.status == 0 else { throw RawClient.Failure(description: created.stderr) }
        return created.stdout.trimmingCharacters(in: .newlines)
    }

    /// One request on a connection of its own, with the given headers.
    static func request(
        _ method: String, _ target: String, port: Int, headers: [String: String] = [:], body: String = ""
    ) throws -> RawClient.Response {
        let client = try RawClient(port: port, timeout: .seconds(30))
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" {
            head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        try client.send(head + "\r\n" + body)
        return try client.readResponse()
    }

    /// `application/x-www-form-urlencoded`.
    static func form(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    /// Signs in with `token` and returns the session cookie (`geoledger_session=...`) and the Set-Cookie line.
    static func signIn(_ token: String, port: Int) throws -> (cookie: String, setCookie: String) {
        let response = try request("POST", "/sign-in", port: port, body: form([("token", token), ("next", "/")]))
        guard response.status == 303, let setCookie = response.headers["Set-Cookie"] else {
            throw RawClient.Failure(description: "sign-in answered \(response.status): \(response.text.prefix(300))")
        }
        return (String(setCookie.split(separator: ";")[0]), setCookie)
    }

    /// Runs one of the browser scripts with the tools' Python and returns what it printed, a JSON object.
    static func runBrowser(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let tools = try #require(
            ProcessInfo.processInfo.environment["GEOLEDGER_PYTHON_TOOLS"].map { URL(fileURLWithPath: $0) },
            "GEOLEDGER_PYTHON_TOOLS is not set: run scripts/python-tools.sh and set it to .build/python-tools (make test does both)")
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "Debian's chromium and chromium-driver are missing: apt-get install chromium chromium-driver (make test does as root)")
        let output = try GeneratedClientTests.run(
            tools.appendingPathComponent("bin/python"), [browserFolder.appendingPathComponent(script).path] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
    }
}
