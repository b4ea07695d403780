import DatabaseTestSupport
import EventStore
import Foundation
import Geo
import GeoledgerAPI
import HTTPServer
import HTTPTestSupport
import Ingestion
import Postgres
import RawHTTPClient
import Synchronization
import Testing

/// The region classifier, loaded once for every test.
let classifier: BoundaryClassifier = try! BoundaryClassifier.bundled()

/// The API served on a port the system chose, on 127.0.0.1, over a database of its own, as the application role.
/// It holds a token of each scope, named after it.
final class APITestServer: Sendable {
    let database: TestDatabase?
    let pool: ConnectionPool
    let api: GeoledgerAPI
    let server: HTTPServer
    let log = LogLines()
    /// `ingest`, `read`, `admin`: the token of that scope.
    let tokens: [String: String]

    var port: Int { server.port }

    /// - Parameters:
    ///   - configure: changes the server's settings (the body limit, say).
    ///   - apiConfiguration: changes the API's.
    ///   - database: the application's connection settings; by default a fresh test database with roles.
    init(
        configure: (inout HTTPServer.Configuration) -> Void = { _ in },
        apiConfiguration: (inout GeoledgerAPI.Configuration) -> Void = { _ in },
        application: PostgresConfiguration? = nil
    ) throws {
        let configuration: PostgresConfiguration
        if let application {
            database = nil
            configuration = application
        } else {
            let database = try TestDatabase.createWithRoles()
            self.database = database
            configuration = PostgresConfiguration(connectionString: database.url(as: database.roles!.application))
        }
        pool = ConnectionPool(configuration: configuration, maximumConnections: 4, checkoutTimeout: 10)
        var tokens: [String: String] = [:]
        try pool.withConnection { connection in
            for scope in TokenScope.allCases {
                tokens[scope.rawValue] = try TokenStore().create(name: scope.rawValue, scopes: [scope], on: connection)
            }
        }
        self.tokens = tokens
        let log = self.log
        var settings = GeoledgerAPI.Configuration(log: { log.append($0) })
        apiConfiguration(&settings)
        let api = GeoledgerAPI(pool: pool, service: IngestService(classifier: classifier), configuration: settings)
        self.api = api
        var server = HTTPServer.Configuration(host: "127.0.0.1", port: 0, workerThreads: 4)
        server.connectionTimeout = .seconds(5)
        server.requestTimeout = .seconds(10)
        server.log = { log.append($0) }
        server.completed = { api.completed($0) }
        configure(&server)
        self.server = try HTTPServer.start(server, router: api.router)
    }

    func stop() {
        server.stop(gracePeriod: .seconds(2))
        pool.close()
        database?.drop()
    }

    /// The API's OpenAPI document, which every answer of ``call(_:_:token:contentType:body:headers:)`` is checked
    /// against.
    var contract: Contract { Contract(document: api.openAPIDocument) }

    /// One request on a connection of its own; `token` names one of ``tokens`` (or is the token text itself). The
    /// answer must be as the OpenAPI document says (``Contract``).
    func call(
        _ method: String, _ target: String, token: String? = nil, contentType: String? = "application/json",
        body: [UInt8] = [], headers: [String: String] = [:]
    ) throws -> RawClient.Response {
        let client = try RawClient(port: port, timeout: .seconds(30))
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(tokens[token] ?? token)\r\n" }
        if let contentType, !body.isEmpty || method == "POST" { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        try client.send(Array((head + "\r\n").utf8) + body)
        let response = try client.readResponse(isHead: method == "HEAD")
        for problem in contract.problems(method, target, response) { Issue.record(Comment(rawValue: problem)) }
        return response
    }

    /// POSTs `lines` as a JSON array.
    func post(_ lines: [String], query: String = "", token: String = "ingest") throws -> RawClient.Response {
        try call("POST", "/v1/events" + query, token: token, body: Array(("[" + lines.joined(separator: ",") + "]").utf8))
    }

    /// Events in the log, as the application reads them.
    func storedCount() throws -> Int {
        try pool.withConnection { try $0.query("SELECT count(*) FROM events").first!.decode(0, as: Int.self) }
    }
}

/// Starts a server, runs `body` on a thread of its own, stops the server whatever happens.
func withAPI<T: Sendable>(
    configure: @escaping @Sendable (inout HTTPServer.Configuration) -> Void = { _ in },
    apiConfiguration: @escaping @Sendable (inout GeoledgerAPI.Configuration) -> Void = { _ in },
    _ body: @escaping @Sendable (APITestServer) throws -> T
) async throws -> T {
    try await onThread {
        let server = try APITestServer(configure: configure, apiConfiguration: apiConfiguration)
        defer { server.stop() }
        return try body(server)
    }
}

/// Lines a server logged.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

extension RawClient.Response {
    /// The body as a JSON object.
    var object: [String: Any] {
        get throws {
            try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], "not a JSON object: \(text)")
        }
    }

    /// The `error.code` of an error document.
    var errorCode: String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    /// Each result's `status`, in order.
    var statuses: [String] {
        get throws { try #require(try object["results"] as? [[String: Any]]).map { $0["status"] as? String ?? "?" } }
    }
}

/// Submissions as a batch job sends them (DESIGN.md, "Submission format").
enum Submissions {
    static let capturedAt: String = {
        Date().addingTimeInterval(-3600).formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }()

    static func merchantFix(
        _ merchant: String = "M0001", id: UUID = UUID(), lat: Double = 31.2304, expectedVersion: Int? = nil
    ) -> String {
        let expected = expectedVersion.map { #","expectedVersion":\#($0)"# } ?? ""
        return """
            {"eventId":"\(id.uuidString)","type":"MerchantAddressFixed","merchantId":"\(merchant)","purpose":"onboarding",\
            "fix":{"lat":\(lat),"lon":121.4737,"datum":"gcj02","horizontalAccuracy":35,"accuracyAuthorization":"full",\
            "provider":"amap","capturedAt":"\(capturedAt)","address":{"country":"中国","province":"上海市","city":"上海市",\
            "district":"黄浦区","street":"南京东路","streetNumber":"100号","poiName":"第一百货",\
            "formatted":"上海市黄浦区南京东路100号","adcode":"310101"},"claimedInRegion":true},\
            "actor":{"userId":"sales-17","app":"onboarding","appVersion":"5.2.0","deviceId":"A1B2","os":"iOS 17.2"}\(expected)}
            """
    }

    static func terminalBound(_ terminal: String, merchant: String, id: UUID = UUID()) -> String {
        """
        {"eventId":"\(id.uuidString)","type":"TerminalBound","terminalId":"\(terminal)","merchantId":"\(merchant)",\
        "fix":{"lat":31.2305,"lon":121.4738,"datum":"gcj02","horizontalAccuracy":20,"accuracyAuthorization":"full",\
        "provider":"amap","capturedAt":"\(capturedAt)"},\
        "actor":{"userId":"sales-17","app":"onboarding","appVersion":"5.2.0","deviceId":"A1B2","os":"Android 13"}}
        """
    }
}
