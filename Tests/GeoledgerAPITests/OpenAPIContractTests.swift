import Foundation
import GeoledgerAPI
import JSON
import LocationEvents
import Testing

/// The submission format as the document describes it, against `SubmissionValidator`, which decides what is
/// appended: the same members for each type, the same required ones, the same limits.
@Suite("The OpenAPI document's submission format is the validator's")
struct OpenAPIContractTests {
    /// A valid submission of each type, with only its required members.
    static let minimal: [EventType: String] = {
        let id = #""eventId":"0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40""#
        let fix = #""fix":{"lat":31.2,"lon":121.4,"horizontalAccuracy":20,"provider":"amap","capturedAt":"2026-11-29T10:00:00+08:00"}"#
        return [
            .merchantAddressFixed: #"{\#(id),"type":"MerchantAddressFixed","merchantId":"M1","purpose":"shop",\#(fix)}"#,
            .enterpriseAddressFixed: #"{\#(id),"type":"EnterpriseAddressFixed","enterpriseId":"E1",\#(fix)}"#,
            .terminalBound: #"{\#(id),"type":"TerminalBound","terminalId":"T1","merchantId":"M1",\#(fix)}"#,
            .terminalUnbound: #"{\#(id),"type":"TerminalUnbound","terminalId":"T1","merchantId":"M1"}"#,
            .terminalLocated: #"{\#(id),"type":"TerminalLocated","terminalId":"T1",\#(fix)}"#,
            .visitRecorded: #"{\#(id),"type":"VisitRecorded","visitId":"V1","merchantId":"M1","visitorId":"S1",\#(fix)}"#,
            .locationFailed: #"{\#(id),"type":"LocationFailed","terminalId":"T1","provider":"amap","errorCode":12,"capturedAt":"2026-11-29T10:00:00+08:00"}"#,
        ]
    }()

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func document() async throws -> JSONValue {
        try await withAPI { $0.api.openAPIDocument }
    }

    static func errors(_ text: String) -> [FieldError] {
        switch SubmissionValidator().validate(Data(text.utf8), now: now) {
        case .success: []
        case .failure(let failure): failure.errors
        }
    }

    @Test("each type's documented members are the ones the validator takes, its required ones those it requires")
    func members() async throws {
        let contract = Contract(document: try await Self.document())
        let schemas = try #require(contract.document["components"]?["schemas"])
        let documented = Dictionary(uniqueKeysWithValues: EventType.allCases.map { type in
            (type, schemas[type.rawValue]?["properties"]?.objectValue?.keys ?? [])
        })
        let everyName = Set(documented.values.flatMap { $0 })
        for type in EventType.allCases {
            let text = try #require(Self.minimal[type])
            let base = try #require(try JSONValue(parsing: Data(text.utf8)).objectValue)
            #expect(Self.errors(text).isEmpty, "\(type): \(Self.errors(text))")
            #expect(contract.validate(.object(base), .object(["$ref": .string("#/components/schemas/Submission")]), at: type.rawValue).isEmpty)
            for name in everyName where !documented[type, default: []].contains(name) {
                var extra = base
                extra[name] = .string("M1")
                let codes = Self.errors(String(decoding: JSONValue.object(extra).canonicalData(), as: UTF8.self))
                #expect(codes.contains { $0.field == name && $0.code == "unknown_field" }, "\(type) takes \(name) undocumented")
            }
            let required = schemas[type.rawValue]?["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for name in base.keys {
                var without = base
                without[name] = nil
                let refused = !Self.errors(String(decoding: JSONValue.object(without).canonicalData(), as: UTF8.self)).isEmpty
                let entityId = type == .locationFailed && name == "terminalId"
                #expect(refused == (required.contains(name) || entityId), "\(type): \(name) required by one and not the other")
            }
        }
    }

    @Test("a fix, an address and an actor have the validator's members; lengths and accuracy are ValidationLimits'")
    func limits() async throws {
        let schemas = try #require(try await Self.document()["components"]?["schemas"])
        func names(_ schema: String) -> [String] { schemas[schema]?["properties"]?.objectValue?.keys.sorted() ?? [] }
        #expect(names("Fix") == Fix.fieldNames.sorted())
        #expect(names("Address") == Address.fieldNames.sorted())
        #expect(names("Actor") == Actor.fieldNames.sorted())
        let limits = ValidationLimits()
        #expect(schemas["Fix"]?["properties"]?["horizontalAccuracy"]?["maximum"]?.numberValue == limits.maximumAccuracyMetres)
        let street = schemas["Address"]?["properties"]?["street"]?["maxLength"]?.numberValue
        #expect(street == Double(limits.maximumAddressFieldLength))
        let base = try #require(Self.minimal[.merchantAddressFixed])
        for (length, valid) in [(limits.maximumAddressFieldLength, true), (limits.maximumAddressFieldLength + 1, false)] {
            let text = base.replacingOccurrences(
                of: #""provider":"amap""#, with: #""provider":"amap","address":{"street":"\#(String(repeating: "路", count: length))"}"#)
            #expect(Self.errors(text).isEmpty == valid, "a street of \(length) characters")
        }
        #expect(schemas["TerminalUnbound"]?["properties"]?["reason"]?["maxLength"]?.numberValue == Double(limits.maximumReasonLength))
        #expect(schemas["VisitRecorded"]?["properties"]?["note"]?["maxLength"]?.numberValue == Double(limits.maximumNoteLength))
    }

    @Test("the document's example batch is a valid request, and posting it appends every event")
    func example() async throws {
        try await withAPI { server in
            let body = server.api.openAPIDocument["paths"]?["/v1/events"]?["post"]?["requestBody"]?["content"]?["application/json"]
            let example = try #require(body?["schema"]?["examples"]?.arrayValue?.first)
            #expect(server.contract.validate(example, try #require(body?["schema"]), at: "example").isEmpty)
            let answer = try server.call("POST", "/v1/events", token: "ingest", body: Array(example.canonicalData()))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.statuses == ["appended", "appended", "appended"], "\(answer.text)")
        }
    }

    @Test("providers answers failures by category as an object of numbers in JSON, name=n in CSV")
    func failuresByCategory() async throws {
        try await withAPI { server in
            let failure = #"{"eventId":"\#(UUID().uuidString)","type":"LocationFailed","terminalId":"T1","provider":"amap","errorCode":12,"capturedAt":"\#(Located.time(0))","actor":{"os":"Android 13"}}"#
            #expect(try server.post([failure]).statuses == ["appended"])
            let rows = try server.call("GET", "/v1/reports/providers", token: "read").rows
            let counts = try #require(rows.first { $0["failures"] as? Int == 1 }?["failuresByCategory"] as? [String: Int])
            #expect(counts.values.reduce(0, +) == 1)
            let csv = try server.call("GET", "/v1/reports/providers?format=csv", token: "read").text
            #expect(csv.contains(",\(counts.keys.first!)=1,"), "\(csv)")
        }
    }
}
