import EventStore
import Foundation
import HTTPServer
import Ingestion
import JSON
import LocationEvents
import Postgres

/// `POST /v1/events` and `GET /v1/events`: the batch in, through the ingest's reading, validation and append; the
/// global feed out.
enum EventRoutes {
    /// What a batch may be sent as: a JSON array of submissions, or NDJSON.
    static let batchMediaTypes = ["application/json", "application/x-ndjson", "application/ndjson"]
    static let defaultFeedLimit: Int64 = 100
    static let maximumFeedLimit: Int64 = 10_000

    /// The items of a batch body, read as `ingest` reads a file (``SubmissionReader``).
    /// - Throws: 400 when the body is not a batch at all: empty, not starting with `[` or `{`, or a JSON array
    ///   whose structure breaks (truncated, an element too large to read cut short too, a stray bracket): then
    ///   nothing of it is appended. 413 over `limit` items.
    static func items(_ body: [UInt8], limit: Int) throws(APIError) -> [SubmissionReader.RawItem] {
        var index = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 }
        guard index < body.count else {
            throw APIError(
                .badRequest, code: "empty_batch",
                message: "the body holds no events: send a JSON array of submissions, or NDJSON (one per line)")
        }
        guard body[index] == UInt8(ascii: "[") || body[index] == UInt8(ascii: "{") else {
            throw APIError(
                .badRequest, code: "not_a_batch",
                message: "the body is not a batch: a JSON array of submissions, or NDJSON (one object per line), "
                    + "starts with [ or {, not \(describe(body[index]))")
        }
        var reader = SubmissionReader(data: Data(body))
        var items: [SubmissionReader.RawItem] = []
        while let item = reader.next() {
            if reader.isArrayBroken {
                throw APIError(
                    .badRequest, code: "not_a_batch",
                    message: "the body is not a complete JSON array: \(item.problem?.message ?? "its structure breaks")")
            }
            items.append(item)
            guard items.count <= limit else {
                throw APIError(
                    .contentTooLarge, code: "too_many_events",
                    message: "a batch holds at most \(limit) events; send the rest in another request")
            }
        }
        guard !items.isEmpty else {
            throw APIError(.badRequest, code: "empty_batch", message: "the batch holds no events")
        }
        return items
    }

    static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }

    /// `{"events": [...], "next": P}`: each event with its position, ids, version, type, time, hashes, and its
    /// data and metadata as stored.
    static func feed(_ events: [RecordedEvent], after: Int64) -> [UInt8] {
        var out = Array(#"{"events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array("{\"position\":\(event.position),\"eventId\":".utf8)
            JSONValue.writeString(event.eventId.uuidString.lowercased(), into: &out)
            out += Array(#","stream":"#.utf8)
            JSONValue.writeString(event.stream, into: &out)
            out += Array(",\"version\":\(event.version),\"type\":".utf8)
            JSONValue.writeString(event.type, into: &out)
            out += Array(#","recordedAt":"#.utf8)
            JSONValue.writeString(event.recordedAt.formatted(Self.time), into: &out)
            out += Array(",\"hash\":\"\(ByteaHex.digitsText(of: event.hash))\",\"logHash\":\"\(ByteaHex.digitsText(of: event.logHash))\",\"data\":".utf8)
            out += event.data
            out += Array(#","metadata":"#.utf8)
            out += event.metadata
            out.append(UInt8(ascii: "}"))
        }
        out += Array("],\"next\":\(events.last?.position ?? after)}".utf8)
        return out
    }

    /// The batch answer of DESIGN.md: the canonical bytes of the report's JSON document.
    static func answer(_ report: IngestReport) -> [UInt8] {
        report.canonicalJSON()
    }

    static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
}

extension EventRoutes {
    static let atomic = QueryParameter.boolean(
        "atomic", "true: all or nothing; one failed item appends none (409 when one conflicts, 422 when one is invalid)")
    static let after = QueryParameter.integer(
        "after", "the last position already read", range: 0...Schema.largestExactInteger, default: 0)
    static let limit = QueryParameter.integer(
        "limit", "events to return", range: 1...maximumFeedLimit, default: defaultFeedLimit)

    /// The batch the document shows (DESIGN.md's submission and two more types), which the tests post and expect
    /// appended.
    static let exampleBatch = """
        [{"eventId":"0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40","type":"MerchantAddressFixed","merchantId":"M0001",\
        "purpose":"onboarding","fix":{"lat":31.2304,"lon":121.4737,"datum":"gcj02","horizontalAccuracy":35,\
        "accuracyAuthorization":"full","provider":"amap","capturedAt":"2026-11-29T10:00:00+08:00","address":{"country":"中国",\
        "province":"上海市","city":"上海市","district":"黄浦区","street":"南京东路","streetNumber":"100号","poiName":"第一百货",\
        "formatted":"上海市黄浦区南京东路100号","adcode":"310101"},"claimedInRegion":true},"actor":{"userId":"sales-17",\
        "app":"onboarding","appVersion":"5.2.0","deviceId":"A1B2","os":"iOS 17.2"}},
        {"eventId":"7d21c0de-51aa-4b7e-9c3f-2a1b0c9d8e7f","type":"TerminalBound","terminalId":"T0001","merchantId":"M0001",\
        "fix":{"lat":31.2305,"lon":121.4738,"datum":"gcj02","horizontalAccuracy":20,"accuracyAuthorization":"full",\
        "provider":"amap","capturedAt":"2026-11-29T10:05:00+08:00"},"actor":{"userId":"sales-17","app":"onboarding","os":"Android 13"}},
        {"eventId":"5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b","type":"LocationFailed","merchantId":"M0001","purpose":"relocation",\
        "provider":"tencent","errorCode":2,"errorMessage":"network error","capturedAt":"2026-11-29T11:00:00+08:00",\
        "actor":{"app":"merchant","os":"iOS 17.2"}}]
        """

    /// A batch as each media type carries it. Any JSON value is an item: a valid submission is appended, anything
    /// else answered `invalid` with its field errors, and the batch goes on.
    static func batchSchemas(maximumItems: Int) -> [(String, JSONValue)] {
        let item = JSONValue.object([
            "anyOf": .array([
                Schema.ref("Submission"),
                .object(["description": .string("anything else: answered status invalid, with every problem by field")]),
            ])
        ])
        let json = Schema.oneOf([
            Schema.array(item, "submissions, at most \(maximumItems) (more: 413 too_many_events)", minItems: 1),
            Schema.adding("type", .string("object"), to: Schema.described(item, "one submission: a batch of one")),
        ])
        let ndjson = Schema.string("one submission per line, at most \(maximumItems)", minLength: 1)
        let example = (try? JSONValue(parsing: Data(exampleBatch.utf8))) ?? .null
        return batchMediaTypes.map { ($0, $0 == "application/json" ? Schema.adding("examples", .array([example]), to: json) : ndjson) }
    }
}

extension GeoledgerAPI {
    /// `POST /v1/events` and `GET /v1/events`.
    var eventRoutes: [APIRoute] {
        [
            APIRoute(
                .post, "/v1/events", access: .token(.ingest), summary: "Append a batch of events",
                query: [EventRoutes.atomic.documented], body: EventRoutes.batchSchemas(maximumItems: configuration.maximumBatchItems),
                success: .json(
                    "The batch was processed and committed: per item appended, duplicate, conflict or invalid",
                    Schema.ref("BatchAnswer")),
                failures: [
                    400: .init("The body is not a batch of events; nothing appended", ["empty_batch", "not_a_batch"]),
                    409: .init("atomic=true and an item conflicts; nothing appended", answer: Schema.ref("BatchAnswer")),
                    413: .init("The body or the number of events is over the limit; nothing appended", ["too_many_events"]),
                    415: .init("The body is not JSON or NDJSON in UTF-8", ["unsupported_media_type"]),
                    422: .init("atomic=true and an item is invalid; nothing appended", answer: Schema.ref("BatchAnswer")),
                    503: .init(
                        "The database cannot be reached, the server stopped before the batch committed, or the projections are "
                            + "too far behind the log; nothing appended", ["shutting_down"]),
                ], handler: { [self] in try postEvents($0) }),
            APIRoute(
                .get, "/v1/events", access: .token(.read), summary: "The global feed: events after a position, in position order",
                query: [EventRoutes.after.documented, EventRoutes.limit.documented],
                success: .json("Events and the position to ask after next", Schema.ref("FeedPage")),
                handler: { [self] in try getEvents($0) }),
        ]
    }

    func postEvents(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let type = request.mediaType, EventRoutes.batchMediaTypes.contains(type),
            ["utf-8", "utf8"].contains(request.charset ?? "utf-8")
        else {
            throw APIError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: "send the batch in UTF-8 as Content-Type \(EventRoutes.batchMediaTypes.joined(separator: ", ")), not "
                    + (request.contentType ?? "without a Content-Type"),
                field: "Content-Type")
        }
        let atomic = try request.value(EventRoutes.atomic) ?? false
        let raw = try EventRoutes.items(request.body, limit: configuration.maximumBatchItems)
        // Held back, with nothing stored, while the projections are too far behind.
        try projector.admit()
        // Read one at a time as the batch is prepared, as `ingest` does: a 16 MiB body of junk items such as
        // `{"a":[1,1,...]}` holds what reading one of them takes at once, not all of them.
        let batch = service.prepare(raw.lazy.map(\.parsed))
        // The event type each item names, for the metrics: one of the event types, else `unknown`.
        let types = batch.types.map { $0?.rawValue ?? "unknown" }
        // The answer is given only once the transaction committed: a 200 means stored. And the server stopping
        // either waits for this answer or cuts the request off with a 503 before COMMIT: a 503 means nothing stored.
        let (report, decidedAhead) = try writer.submit(batch, atomic: atomic, beforeCommit: {
            guard request.beginCommit() else {
                throw APIError(
                    .serviceUnavailable, code: "shutting_down",
                    message: "the server stopped before request \(request.id) was answered; nothing of it was stored")
            }
        }).wait()
        metrics.recordBatch(decidedAhead: decidedAhead)
        metrics.recordEvents(types: types, statuses: report.results.map(\.status.rawValue))
        var status = HTTPStatus.ok
        if atomic && report.count(.appended) + report.count(.duplicate) < report.results.count {
            status = report.count(.invalid) > 0 ? .unprocessableContent : .conflict
        }
        return .json(EventRoutes.answer(report), status: status)
    }

    func getEvents(_ request: HTTPRequest) throws -> HTTPResponse {
        let after = try request.value(EventRoutes.after) ?? 0
        let limit = try request.value(EventRoutes.limit) ?? EventRoutes.defaultFeedLimit
        // Appends take one lock and commit in position order, so the events after a position are final once
        // visible: a reader resuming from the last position it saw misses none (EventLog).
        let events = try pool.withConnection { try EventLog().readAll(after: after, limit: Int(limit), on: $0) }
        return .json(EventRoutes.feed(events, after: after))
    }
}
