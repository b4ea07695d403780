import Foundation
import HTTPServer
import Synchronization
import Testing

/// The record of each answer the server hands to the application, for access logs and metrics.
@Suite struct CompletedRequestTests {
    final class Records: Sendable {
        private let records = Mutex<[CompletedRequest]>([])
        var all: [CompletedRequest] { records.withLock { $0 } }
        func append(_ record: CompletedRequest) { records.withLock { $0.append(record) } }
    }

    @Test("every answer is reported once, routed or not: its id, route, status, bytes as sent and principal")
    func everyAnswerReported() async throws {
        let port = TestPort.base + 61
        var router = Router()
        router.get("/items/{id}") { request in
            HTTPResponse(body: Array("item \(request.pathParameters["id"]!)".utf8), principal: "reader")
        }
        let records = Records()
        let (found, missing, tooLarge) = try await withServer(
            port: port, router: router,
            configure: {
                $0.maximumBodyBytes = 100
                $0.completed = { records.append($0) }
            }
        ) { _ in
            (
                try request(port: port, "GET", "/items/7"),
                try request(port: port, "GET", "/nowhere"),
                try request(port: port, "POST", "/items/7", headers: ["Content-Length": "1000"])
            )
        }
        #expect(eventually { records.all.count == 3 })
        let byID = Dictionary(uniqueKeysWithValues: records.all.map { ($0.id, $0) })
        let first = try #require(byID[found.headers["X-Request-Id"] ?? ""])
        #expect(first.route == "/items/{id}")
        #expect(first.method == .get)
        #expect(first.status == .ok)
        #expect(first.bytes == found.body.count)
        #expect(first.principal == "reader")
        #expect(first.remoteAddress == "127.0.0.1")
        #expect(first.duration > .zero)
        let second = try #require(byID[missing.headers["X-Request-Id"] ?? ""])
        #expect(second.route == nil)
        #expect(second.status == .notFound)
        #expect(second.principal == nil)
        let third = try #require(byID[tooLarge.headers["X-Request-Id"] ?? ""])
        #expect(tooLarge.status == 413)
        #expect(third.status == .contentTooLarge)
        #expect(third.route == nil)
    }
}
