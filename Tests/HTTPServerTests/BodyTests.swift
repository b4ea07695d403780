import Foundation
@testable import HTTPServer
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
        try await withServer(port: port, router: Self.echo(counter)) { _ in
            // The client says it will send 1 GiB and asks leave to send it (100-continue): the answer comes first, with no 100.
            let waiting = try RawClient(port: port, timeout: .seconds(5))
            try waiting.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\nExpect: 100-continue\r\n\r\n")
            let refused = try waiting.readResponse()
            #expect(refused.status == 413)
            #expect(try errorObject(refused.body)["code"] == "body_too_large")

            // The client starts sending regardless: 64 KiB of a declared 1 GiB, and the answer is already there.
            let sending = try RawClient(port: port, timeout: .seconds(5))
            try sending.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1073741824\r\n\r\n")
            try sending.send([UInt8](repeating: 0x41, count: 64 << 10))
            let started = ContinuousClock.now
            #expect(try sending.readResponse().status == 413)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(counter.calls == 0)
        }
    }

    @Test func aChunkedBodyThatGrowsPastTheLimitIs413() async throws {
        let port = TestPort.base + 11
        let counter = Counter()
        try await withServer(port: port, router: Self.echo(counter), configure: { $0.maximumBodyBytes = 1 << 20 }) { _ in
            func post(chunks: Int) throws -> RawClient.Response {
                let client = try RawClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x42, count: 0x10000) + Array("\r\n".utf8)
                for _ in 0..<chunks { try client.send(chunk) }
                try client.send("0\r\n\r\n")
                return try client.readResponse()
            }
            let within = try post(chunks: 16)  // exactly 1 MiB
            #expect(within.status == 200)
            #expect(within.body.count == 1 << 20)
            let over = try post(chunks: 17)
            #expect(over.status == 413)
            #expect(try errorObject(over.body)["code"] == "body_too_large")
            #expect(counter.calls == 1)
        }
    }

    @Test func gzipRequestBodiesReachTheHandlerInflated() async throws {
        let port = TestPort.base + 12
        let counter = Counter()
        try await withServer(port: port, router: Self.echo(counter)) { _ in
            let original = Array(String(repeating: #"{"merchantId":"m-1","lat":48.85,"lon":2.35}"# + "\n", count: 2000).utf8)
            let compressed = Gzip.deflate(original)
            let response = try await fetch(
                "POST", port: port, "/echo", body: Data(compressed), headers: ["Content-Encoding": "gzip"])
            #expect(response.status == 200)
            #expect(Array(response.body) == original)

            let twoMembers = Gzip.deflate(Array("one\n".utf8)) + Gzip.deflate(Array("two\n".utf8))
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Encoding: x-gzip\r\nContent-Length: \(twoMembers.count)\r\n\r\n")
            try client.send(twoMembers)
            #expect(try client.readResponse().text == "one\ntwo\n")
        }
    }

    @Test func aGzipBombIs413AndNeverReachesTheHandler() async throws {
        let port = TestPort.base + 13
        let counter = Counter()
        try await withServer(port: port, router: Self.echo(counter), configure: { $0.maximumBodyBytes = 1 << 20 }) { _ in
            // 128 MiB of zeros in about 128 KiB: under the limit as sent, far over it inflated.
            let bomb = Gzip.deflate([UInt8](repeating: 0, count: 128 << 20), level: 9)
            #expect(bomb.count < 1 << 20)
            let client = try RawClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n")
            try client.send(bomb)
            let response = try client.readResponse()
            #expect(response.status == 413)
            #expect(try errorObject(response.body)["message"] == "the gzip request body inflates to more than the limit of 1048576 bytes")
            #expect(counter.calls == 0)
        }
    }

    @Test func badGzipIs400AndUnknownEncodingsAre415() async throws {
        let port = TestPort.base + 14
        let counter = Counter()
        try await withServer(port: port, router: Self.echo(counter)) { _ in
            let valid = Gzip.deflate(Array(String(repeating: "some text ", count: 500).utf8))
            for body in [Array("this is not gzip".utf8), Array(valid.prefix(valid.count / 2))] {
                let client = try RawClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n")
                try client.send(body)
                let response = try client.readResponse()
                #expect(response.status == 400)
                let error = try errorObject(response.body)
                #expect(error["code"] == "invalid_gzip")
                #expect(error["field"] == "Content-Encoding")
            }
            let brotli = try RawClient(port: port)
            try brotli.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Encoding: br\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
            let response = try brotli.readResponse()
            #expect(response.status == 415)
            #expect(try errorObject(response.body)["code"] == "unsupported_content_encoding")
            #expect(counter.calls == 0)
        }
    }

    @Test func responsesAreGzippedWhenTheClientAcceptsItAndItIsWorthIt() async throws {
        let port = TestPort.base + 15
        let large = Array(String(repeating: #"{"position":1,"type":"merchant.located"}"# + "\n", count: 1000).utf8)
        var router = Router()
        router.get("/large") { _ in .json(large) }
        router.get("/small") { _ in .json(Array(#"{"ok":true}"#.utf8)) }
        try await withServer(port: port, router: router) { _ in
            func get(_ path: String, acceptEncoding: String?) throws -> RawClient.Response {
                let client = try RawClient(port: port)
                let header = acceptEncoding.map { "Accept-Encoding: \($0)\r\n" } ?? ""
                try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(header)\r\n")
                return try client.readResponse()
            }
            let gzipped = try get("/large", acceptEncoding: "br, gzip")
            #expect(gzipped.headers["Content-Encoding"] == "gzip")
            #expect(gzipped.headers["Vary"] == "Accept-Encoding")
            #expect(gzipped.headers["Content-Type"] == "application/json")
            #expect(gzipped.body.count < large.count / 10)
            #expect(try Gzip.inflate(gzipped.body, limit: 1 << 20) == large)

            for refused in [nil, "gzip;q=0", "identity"] {
                let plain = try get("/large", acceptEncoding: refused)
                #expect(plain.headers["Content-Encoding"] == nil)
                #expect(plain.body == large)
            }
            let small = try get("/small", acceptEncoding: "gzip")
            #expect(small.headers["Content-Encoding"] == nil)
            #expect(small.text == #"{"ok":true}"#)

            // URLSession asks for gzip and inflates it itself.
            let viaURLSession = try await fetch(port: port, "/large")
            #expect(Array(viaURLSession.body) == large)
        }
    }
}
