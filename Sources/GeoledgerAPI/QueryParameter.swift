import CivilCalendar
import Foundation
import HTTPServer
import JSON
import LocationEvents
import Output
import Queries

/// A query parameter: its name, what the OpenAPI document says of it, and how a handler reads its text, from one
/// definition, so that the document states exactly the values the handler takes.
struct QueryParameter<Value: Sendable>: Sendable {
    let name: String
    let description: String
    /// The JSON Schema of its value.
    let schema: JSONValue
    /// What a value must be, in the 400 that answers one that is not: `a whole number from 1 to 10000`.
    let rule: String
    let read: @Sendable (String) -> Value?

    /// The parameter as a route lists it, for the document and for the check of the names a request gives.
    var documented: APIRoute.Parameter { APIRoute.Parameter(name, description, schema: schema) }
}

extension QueryParameter where Value == Int64 {
    static func integer(_ name: String, _ description: String, range: ClosedRange<Int64>, default fallback: Int64? = nil) -> Self {
        var schema = Schema.integer(minimum: range.lowerBound, maximum: range.upperBound)
        if let fallback { schema = Schema.adding("default", .number(Double(fallback)), to: schema) }
        return Self(
            name: name, description: description, schema: schema,
            rule: "a whole number from \(range.lowerBound) to \(range.upperBound)",
            read: { text in Int64(text).flatMap { range.contains($0) ? $0 : nil } })
    }
}

extension QueryParameter where Value == Double {
    /// A number, 0 or more: metres.
    static func metres(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description, schema: Schema.number(minimum: 0), rule: "metres, 0 or more",
            read: { text in Double(text).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } })
    }
}

extension QueryParameter where Value == Bool {
    static func boolean(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description, schema: Schema.adding("default", .bool(false), to: Schema.boolean()),
            rule: "true or false", read: { ["true": true, "false": false][$0] })
    }
}

extension QueryParameter where Value == Date {
    /// An RFC 3339 time with its offset.
    static func time(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description, schema: Schema.string(format: "date-time", example: "2026-11-01T00:00:00+08:00"),
            rule: "an RFC 3339 time with its offset (2026-11-01T00:00:00+08:00)", read: { Timestamp(rfc3339: $0)?.date })
    }

    /// An RFC 3339 time, or a date: its midnight in UTC (``ReportFilters/instant(_:)``).
    static func instant(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description,
            schema: .object(["anyOf": .array([Schema.string(format: "date-time"), Schema.string(format: "date", example: "2026-11-01")])]),
            rule: "RFC 3339 (2026-11-01T08:00:00+08:00) or a date (2026-11-01)", read: ReportFilters.instant)
    }
}

extension QueryParameter where Value == String {
    /// An entity id (``EntityID``).
    static func id(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description, schema: Schema.id(description), rule: "1–64 characters of A–Z, a–z, 0–9, _ . : -, not . or ..",
            read: { EntityID.isValid($0) ? $0 : nil })
    }
}

extension QueryParameter where Value == Format {
    /// `format`: one of `formats`, json when absent.
    static func format(_ formats: [Format], _ description: String) -> Self {
        Self(
            name: "format", description: description,
            schema: Schema.adding("default", .string("json"), to: Schema.string(values: formats.map(\.rawValue))),
            rule: "one of \(formats.map(\.rawValue).joined(separator: ", "))",
            read: { text in Format(rawValue: text).flatMap { formats.contains($0) ? $0 : nil } })
    }
}

extension HTTPRequest {
    /// The value of `parameter`; nil when absent.
    /// - Throws: 400 `invalid_parameter` naming it when its text is not one of its values.
    func value<Value>(_ parameter: QueryParameter<Value>) throws(APIError) -> Value? {
        guard let text = query[parameter.name] else { return nil }
        guard let value = parameter.read(text) else {
            throw .badParameter(parameter.name, "\(parameter.name) must be \(parameter.rule), not '\(text)'")
        }
        return value
    }
}
