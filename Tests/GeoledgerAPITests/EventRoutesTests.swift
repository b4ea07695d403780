import Foundation
import GeoledgerAPI
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Synchronization
import Testing

@Suite("POST and GET /v1/events over HTTP")
struct EventRoutesTests {
    @Test("a batch is answered per item (appended with its position, invalid with field errors); a resend is duplicate")
    func batchAndResend() async throws {
        try await withAPI { server in
            let good = [Submissions.merchantFix("M1"), Submissions.merchantFix("M2")]
            let bad = Submissions.merchantFix("M3", lat: 100)
            let first = try server.post(good + [bad])
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.statuses == ["appended", "appended", "invalid"])
            let object = try first.object
            #expect(object["appended"] as? Int == 2 && object["invalid"] as? Int == 1)
            let results = try #require(object["results"] as? [[String: Any]])
            #expect(results.map { $0["position"] as? Int } == [1, 2, nil])
            let errors = try #require(results[2]["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "fix.lat")
            #expect(errors.first?["code"] as? String == "out_of_range")

            let again = try server.post(good)
            #expect(again.status == 200)
            #expect(try again.statuses == ["duplicate", "duplicate"])
            #expect(try server.storedCount() == 2)
        }
    }

    @Test("NDJSON is read like a JSON array, with the same answers")
    func ndjson() async throws {
        try await withAPI { server in
            let body = Array((Submissions.merchantFix("M1") + "\n\n" + Submissions.merchantFix("M2") + "\n").utf8)
            let response = try server.call("POST", "/v1/events", token: "ingest", contentType: "application/x-ndjson", body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(try response.statuses == ["appended", "appended"])
        }
    }

    @Test("?atomic=true: an invalid item answers 422 and a conflicting one 409, and nothing of the batch is stored")
    func atomic() async throws {
        try await withAPI { server in
            let invalid = try server.post([Submissions.merchantFix("M1"), Submissions.merchantFix("M2", lat: 100)], query: "?atomic=true")
            #expect(invalid.status == 422, "\(invalid.text)")
            #expect(try invalid.statuses == ["not_appended", "invalid"])
            #expect(try server.storedCount() == 0)

            let conflicting = try server.post(
                [Submissions.merchantFix("M1"), Submissions.merchantFix("M2", expectedVersion: 4)], query: "?atomic=true")
            #expect(conflicting.status == 409, "\(conflicting.text)")
            #expect(try conflicting.statuses == ["not_appended", "conflict"])
            #expect(try server.storedCount() == 0)

            let whole = try server.post([Submissions.merchantFix("M1"), Submissions.merchantFix("M2")], query: "?atomic=true")
            #expect(whole.status == 200)
            #expect(try server.storedCount() == 2)

            let malformed = try server.post([Submissions.merchantFix("M1")], query: "?atomic=maybe")
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "invalid_parameter")
            for query in ["?atomc=true", "?atomic=true&atomic=false"] {
                let refused = try server.post([Submissions.merchantFix("M3")], query: query)
                #expect(refused.status == 400, "\(query)")
                #expect(refused.errorCode == "invalid_parameter", "\(query)")
            }
            #expect(try server.storedCount() == 2)
        }
    }

    @Test("bodies that are not a batch: 400 (empty, not JSON, a truncated or broken array), 415, 413; nothing stored")
    func notABatch() async throws {
        try await withAPI(configure: { $0.maximumBodyBytes = 64 << 10 }, apiConfiguration: { $0.maximumBatchItems = 3 }) { server in
            let one = Submissions.merchantFix("M1")
            let cases: [(body: String, status: Int, code: String)] = [
                ("", 400, "empty_batch"),
                ("  \n ", 400, "empty_batch"),
                ("hello", 400, "not_a_batch"),
                ("\"a string\"", 400, "not_a_batch"),
                ("[" + one, 400, "not_a_batch"),
                ("[" + one + ",", 400, "not_a_batch"),
                ("[" + one + "}]", 400, "not_a_batch"),
                ("[" + one + "] trailing", 400, "not_a_batch"),
                ("[]", 400, "empty_batch"),
                ("[" + Array(repeating: one, count: 4).joined(separator: ",") + "]", 413, "too_many_events"),
            ]
            for (body, status, code) in cases {
                let response = try server.call("POST", "/v1/events", token: "ingest", body: Array(body.utf8))
                #expect(response.status == status, "\(body.prefix(40)): \(response.text)")
                #expect(response.errorCode == code, "\(body.prefix(40)): \(response.text)")
            }
            let text = try server.call("POST", "/v1/events", token: "ingest", contentType: "text/plain", body: Array(one.utf8))
            #expect(text.status == 415)
            #expect(text.errorCode == "unsupported_media_type")
            let none = try server.call("POST", "/v1/events", token: "ingest", contentType: nil, body: Array(one.utf8))
            #expect(none.status == 415)
            let huge = try server.call(
                "POST", "/v1/events", token: "ingest", body: Array(("[" + one + "," + String(repeating: " ", count: 70 << 10) + "]").utf8))
            #expect(huge.status == 413)
            #expect(huge.errorCode == "body_too_large")
            #expect(try server.storedCount() == 0)
        }
    }

    @Test("an array cut short inside an element too large to read is 400, and nothing of the elements before it is stored")
    func arrayCutShortInOversizedElement() async throws {
        try await withAPI { server in
            let one = Submissions.merchantFix("M1")
            let oversized = [
                "\"" + String(repeating: "x", count: 70 << 10),
                String(repeating: "[", count: 100_000),
                String(repeating: #"{"a":"#, count: 20_000),
            ]
            for element in oversized {
                let response = try server.call("POST", "/v1/events", token: "ingest", body: Array(("[" + one + "," + element).utf8))
                #expect(response.status == 400, "\(response.text.prefix(300))")
                #expect(response.errorCode == "not_a_batch")
            }
            #expect(try server.storedCount() == 0)
        }
    }

    @Test("hostile items are invalid, each on its own, and only the valid events are stored; the server stays up")
    func hostileItems() async throws {
        try await withAPI { server in
            let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
            let lines: [[UInt8]] = [
                Array(Submissions.merchantFix("M1").utf8),
                [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D],  // {"\xFF\xFE":1}: not UTF-8
                Array(#"{"eventId":"x","lat":1e999999}"#.utf8),
                Array(("{\"a\":" + deep + "}").utf8),
                Array(#"{"eventId":"00000000-0000-0000-0000-000000000001","eventId":"00000000-0000-0000-0000-000000000002"}"#.utf8),
                Array("{\"type\":\"MerchantAddressFixed\",\"merchantId\":\"M\u{0}1\"}".utf8),
                // A number too small for a Double is not read as 0.
                Array(Submissions.merchantFix("M3").replacingOccurrences(of: #""lat":31.2304"#, with: #""lat":1e-400"#).utf8),
                // Ids a URL cannot name: clients take "." and ".." out of paths.
                Array(Submissions.merchantFix("..").utf8),
                Array(Submissions.merchantFix(".").utf8),
                Array(Submissions.merchantFix("M2").utf8),
            ]
            let body = Array(lines.joined(separator: [0x0A]))
            let response = try server.call("POST", "/v1/events", token: "ingest", contentType: "application/x-ndjson", body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(try response.statuses == ["appended"] + Array(repeating: "invalid", count: 8) + ["appended"])
            #expect(try server.storedCount() == 2)
            #expect(try server.call("GET", "/healthz").status == 200)
        }
    }

    @Test("a batch in a charset other than UTF-8 is 415 naming Content-Type; UTF-8 in any spelling is read")
    func charsets() async throws {
        try await withAPI { server in
            for type in ["application/json; charset=latin1", "application/json; charset=utf-16", "application/x-ndjson; charset=iso-8859-1"] {
                let response = try server.call(
                    "POST", "/v1/events", token: "ingest", contentType: type, body: Array(("[" + Submissions.merchantFix("M1") + "]").utf8))
                #expect(response.status == 415, "\(type): \(response.text)")
                #expect(response.errorCode == "unsupported_media_type")
                #expect(response.text.contains(#""field":"Content-Type""#), "\(response.text)")
            }
            #expect(try server.storedCount() == 0)
            for type in ["application/json; charset=utf-8", "application/json;charset=UTF-8", #"application/json; charset="utf-8""#] {
                let response = try server.call(
                    "POST", "/v1/events", token: "ingest", contentType: type, body: Array(("[" + Submissions.merchantFix("M1") + "]").utf8))
                #expect(response.status == 200, "\(type): \(response.text)")
            }
            #expect(try server.storedCount() == 3)
        }
    }

    @Test("a body cut short (Content-Length promises more, the client goes away) stores nothing")
    func truncatedBody() async throws {
        try await withAPI { server in
            let body = Array(("[" + Submissions.merchantFix("M1") + "]").utf8)
            let client = try RawClient(port: server.port)
            try client.send(
                "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.tokens["ingest"]!)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
            try client.send(Array(body.prefix(body.count - 10)))
            withExtendedLifetime(client) {}
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try server.storedCount() == 0)
            #expect(try server.call("GET", "/healthz").status == 200)
        }
    }

    @Test("a client that stalls in its body gets a 408 with a JSON error within the connection timeout; nothing is stored")
    func stalledBody() async throws {
        try await withAPI(configure: { $0.connectionTimeout = .seconds(1) }) { server in
            let first = Submissions.merchantFix("M1")
            let body = Array(("[" + first + "," + Submissions.merchantFix("M2") + "]").utf8)
            let client = try RawClient(port: server.port, timeout: .seconds(10))
            try client.send(
                "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.tokens["ingest"]!)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
            // The first event whole, then nothing more.
            try client.send(Array(("[" + first + ",").utf8))
            let started = ContinuousClock.now
            let response = try client.readResponse()
            let elapsed = ContinuousClock.now - started
            #expect(response.status == 408, "\(response.text)")
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(response.errorCode == "request_timeout")
            #expect(elapsed < .seconds(3))
            #expect(client.closesWithin(.seconds(2)))
            #expect(try server.storedCount() == 0)
            let id = try #require(response.headers["X-Request-Id"])
            #expect(server.log.all.contains { $0.contains(id) && $0.contains(#""status":408"#) })
            #expect(try server.call("GET", "/healthz").status == 200)
        }
    }

    @Test("the feed pages by position: after= and limit=, next is the last position; bad parameters are 400")
    func feedPaging() async throws {
        try await withAPI { server in
            #expect(try server.post((1...5).map { Submissions.merchantFix("M\($0)") }).status == 200)
            let first = try server.call("GET", "/v1/events?after=0&limit=2", token: "read")
            #expect(first.status == 200, "\(first.text)")
            let page = try first.object
            let events = try #require(page["events"] as? [[String: Any]])
            #expect(events.map { $0["position"] as? Int } == [1, 2])
            #expect(page["next"] as? Int == 2)
            #expect(events[0]["stream"] as? String == "merchant-M1")
            #expect(events[0]["type"] as? String == "MerchantAddressFixed")
            #expect((events[0]["data"] as? [String: Any])?["merchantId"] as? String == "M1")
            #expect((events[0]["metadata"] as? [String: Any]) != nil)
            #expect((events[0]["hash"] as? String)?.count == 64)

            let rest = try server.call("GET", "/v1/events?after=2", token: "read").object
            #expect((rest["events"] as? [[String: Any]])?.map { $0["position"] as? Int } == [3, 4, 5])
            let end = try server.call("GET", "/v1/events?after=5", token: "read").object
            #expect((end["events"] as? [[String: Any]])?.isEmpty == true)
            #expect(end["next"] as? Int == 5)

            for query in ["after=-1", "after=x", "limit=0", "limit=10001", "limit=1.5"] {
                let response = try server.call("GET", "/v1/events?\(query)", token: "read")
                #expect(response.status == 400, "\(query)")
                #expect(response.errorCode == "invalid_parameter", "\(query)")
            }
        }
    }

    @Test("the feed while four clients post: every appended event is seen exactly once, in position order")
    func feedDuringConcurrentPosts() async throws {
        try await withAPI { server in
            let writers = 4, batches = 8, perBatch = 15
            let done = Mutex(0)
            let seen = Mutex<[(position: Int, eventId: String)]>([])
            let readerDone = DispatchSemaphore(value: 0)
            let pagesWhileWriting = Mutex(0)
            Thread.detachNewThread {
                var after = 0
                var finalPass = false
                while true {
                    guard let response = try? server.call("GET", "/v1/events?after=\(after)&limit=7", token: "read"),
                        response.status == 200, let page = try? response.object,
                        let events = page["events"] as? [[String: Any]], let next = page["next"] as? Int
                    else { break }
                    if !events.isEmpty && done.withLock({ $0 }) < writers { pagesWhileWriting.withLock { $0 += 1 } }
                    seen.withLock { seen in
                        for event in events {
                            seen.append((event["position"] as? Int ?? -1, event["eventId"] as? String ?? ""))
                        }
                    }
                    after = next
                    if events.isEmpty {
                        if finalPass { break }
                        if done.withLock({ $0 }) == writers { finalPass = true }
                    }
                }
                readerDone.signal()
            }
            let posted = try concurrently(writers) { writer -> [String] in
                var appended: [String] = []
                for _ in 0..<batches {
                    let ids = (0..<perBatch).map { _ in UUID() }
                    let response = try server.post(ids.enumerated().map { index, id in
                        Submissions.merchantFix("W\(writer)-\(index % 3)", id: id)
                    })
                    guard response.status == 200 else { throw RawClient.Failure(description: response.text) }
                    appended += ids.map { $0.uuidString.lowercased() }
                }
                done.withLock { $0 += 1 }
                return appended
            }
            readerDone.wait()
            let events = seen.withLock { $0 }
            let positions = events.map(\.position)
            #expect(positions == Array(1...(writers * batches * perBatch)))
            #expect(Set(events.map(\.eventId)) == Set(posted.flatMap { $0 }))
            #expect(events.count == writers * batches * perBatch)
            // The reader read while the writers wrote, not only after.
            #expect(pagesWhileWriting.withLock { $0 } > 0)
        }
    }
}
