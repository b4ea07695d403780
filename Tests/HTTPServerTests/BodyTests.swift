import Foundation
import HTTPTestSupport
@testable import HTTPServer
import RawHTTPClient
import Testing

/// Body limits and gzip, both ways.
@Suite struct BodyTests {
    /// Echoes the body it got, and counts its calls.
    static func echo(_ counter: Counter) -> Router {
        var router = Router()
        router.post("/echo") { request in
            counter.enter()
            defer { counter.leave() }
            return HTTPResponse(body: request.body)
        }
        return router
    }

    @Test func aDeclaredBodyOverTheLimitIs413BeforeItIsSent() async throws {
        let port = TestPort.base + 10
        let counter = Counter()
        let (waiting, sending, answeredWithin) = try await withServer(port: port, router: Self.echo(counter)) { _ in
            // The client says it will send 1 GiB and asks leave to send it (100-continue): the answer comes first,
            // with no 100.
            let waiting = try RawClient(port: port, timeout: .seconds(5))
            try waiting.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\nExpect: 100-continue\r\n\r\n")
            let refused = try waiting.readResponse()

            // The client starts sending regardless: 64 KiB of a declared 1 GiB, and the answer is already there.
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\n\r\n")
            try client.send([UInt8](repeating: 0x41, count: 64 << 10))
            let started = ContinuousClock.now
            let answer = try client.readResponse()
            return (refused, answer, ContinuousClock.now - started)
        }
        #expect(waiting.status == 413)
        #expect(try errorObject(waiting.body)["code"] == "body_too_large")
        #expect(try errorObject(waiting.body)["message"] == "the request body is 1073741824 bytes; the limit is 16777216 bytes")
        #expect(sending.status == 413)
        #expect(answeredWithin < .seconds(2))
        #expect(counter.calls == 0)
    }

    @Test func aChunkedBodyThatGrowsPastTheLimitIs413() async throws {
        let port = TestPort.base + 11
        let counter = Counter()
        let (within, over) = try await withServer(port: port, router: Self.echo(counter), configure: { $0.maximumBodyBytes = 1 << 20 }) { _ in
            func post(chunks: Int) throws -> RawClient.Response {
                let client = try RawClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x42, count: 0x10000) + Array("\r\n".utf8)
                for _ in 0..<chunks { try client.send(chunk) }
                try client.send("0\r\n\r\n")
                return try client.readResponse()
            }
            return (try post(chunks: 16), try post(chunks: 17))  // exactly 1 MiB, then 64 KiB more
        }
        #expect(within.status == 200)
        #expect(within.body.count == 1 << 20)
        #expect(over.status == 413)
        #expect(try errorObject(over.body)["code"] == "body_too_large")
        #expect(counter.calls == 1)
    }

    @Test("a chunked body is read whatever the case of chunked and the whitespace before it")
    func chunkedInAnyCaseIsRead() async throws {
        let port = TestPort.base + 16
        let counter = Counter()
        let response = try await withServer(port: port, router: Self.echo(counter)) { _ in
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding:\t CHUNKED\r\n\r\n2\r\n[]\r\n0\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.text == "[]")
        #expect(counter.calls == 1)
    }

    @Test func gzipRequestBodiesReachTheHandlerInflated() async throws {
        let port = TestPort.base + 12
        let counter = Counter()
        let original = Array(String(repeating: #"{"merchantId":"m-1","lat":48.85,"lon":2.35}"# + "\n", count: 2000).utf8)
        let (viaURLSession, twoMembers) = try await withServer(port: port, router: Self.echo(counter)) { _ in
            (
                try fetch("POST", port: port, "/echo", body: Data(Gzip.deflate(original)), headers: ["Content-Encoding": "gzip"]),
                try request(
                    port: port, "POST", "/echo", headers: ["Content-Encoding": "x-gzip"],
                    body: Gzip.deflate(Array("one\n".utf8)) + Gzip.deflate(Array("two\n".utf8)))
            )
        }
        #expect(viaURLSession.status == 200)
        #expect(viaURLSession.body == original)
        #expect(twoMembers.text == "one\ntwo\n")
    }

    @Test func aGzipBombIs413AndNeverReachesTheHandler() async throws {
        let port = TestPort.base + 13
        let counter = Counter()
        // 128 MiB of zeros in about 128 KiB: under the limit as sent, far over it inflated.
        let bomb = Gzip.deflate([UInt8](repeating: 0, count: 128 << 20), level: 9)
        #expect(bomb.count < 1 << 20)
        let response = try await withServer(port: port, router: Self.echo(counter), configure: { $0.maximumBodyBytes = 1 << 20 }) { _ in
            try request(port: port, "POST", "/echo", headers: ["Content-Encoding": "gzip"], body: bomb)
        }
        #expect(response.status == 413)
        #expect(try errorObject(response.body)["message"] == "the gzip request body inflates to more than the limit of 1048576 bytes")
        #expect(counter.calls == 0)
    }

    @Test func badGzipIs400AndUnknownEncodingsAre415() async throws {
        let port = TestPort.base + 14
        let counter = Counter()
        let valid = Gzip.deflate(Array(String(repeating: "some text ", count: 500).utf8))
        let (notGzip, truncated, brotli) = try await withServer(port: port, router: Self.echo(counter)) { _ in
            let brotli = try RawClient(port: port)
            try brotli.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Encoding: br\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
            return (
                try request(port: port, "POST", "/echo", headers: ["Content-Encoding": "gzip"], body: Array("this is not gzip".utf8)),
                try request(port: port, "POST", "/echo", headers: ["Content-Encoding": "gzip"], body: Array(valid.prefix(valid.count / 2))),
                try brotli.readResponse()
            )
        }
        for response in [notGzip, truncated] {
            #expect(response.status == 400)
            let error = try errorObject(response.body)
            #expect(error["code"] == "invalid_gzip")
            #expect(error["field"] == "Content-Encoding")
        }
        #expect(brotli.status == 415)
        #expect(try errorObject(brotli.body)["code"] == "unsupported_content_encoding")
        #expect(counter.calls == 0)
    }

    @Test func responsesAreGzippedWhenTheClientAcceptsItAndItIsWorthIt() async throws {
        let port = TestPort.base + 15
        let large = Array(String(repeating: #"{"position":1,"type":"merchant.located"}"# + "\n", count: 1000).utf8)
        var router = Router()
        router.get("/large") { _ in .json(large) }
        router.get("/small") { _ in .json(Array(#"{"ok":true}"#.utf8)) }
        let refusals: [String?] = [nil, "gzip;q=0", "identity"]
        let (gzipped, plain, small, viaURLSession) = try await withServer(port: port, router: router) { _ in
            func get(_ path: String, acceptEncoding: String?) throws -> RawClient.Response {
                try request(port: port, "GET", path, headers: acceptEncoding.map { ["Accept-Encoding": $0] } ?? [:])
            }
            return (
                try get("/large", acceptEncoding: "br, gzip"),
                try refusals.map { try get("/large", acceptEncoding: $0) },
                try get("/small", acceptEncoding: "gzip"),
                // URLSession asks for gzip and inflates it itself.
                try fetch(port: port, "/large")
            )
        }
        #expect(gzipped.headers["Content-Encoding"] == "gzip")
        #expect(gzipped.headers["Vary"] == "Accept-Encoding")
        #expect(gzipped.headers["Content-Type"] == "application/json")
        #expect(gzipped.body.count < large.count / 10)
        #expect(try Gzip.inflate(gzipped.body, limit: 1 << 20) == large)
        for response in plain {
            #expect(response.headers["Content-Encoding"] == nil)
            #expect(response.body == large)
        }
        #expect(small.headers["Content-Encoding"] == nil)
        #expect(small.text == #"{"ok":true}"#)
        #expect(viaURLSession.body == large)
    }
}
