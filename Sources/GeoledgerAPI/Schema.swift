import JSON
import Output

/// JSON Schema (2020-12, the dialect of OpenAPI 3.1) as values: the words the API's types are described in, for
/// ``OpenAPIDocument``. Objects are closed (`additionalProperties: false`) unless said otherwise: what the server
/// does not write is not promised, and what it does not read is refused.
enum Schema {
    /// 2^53 - 1: the largest whole number every JSON reader holds exactly, and so the largest a limit is stated as.
    static let largestExactInteger: Int64 = 9_007_199_254_740_991

    static func ref(_ name: String) -> JSONValue {
        .object(["$ref": .string("#/components/schemas/" + name)])
    }

    static func string(
        _ description: String? = nil, format: String? = nil, pattern: String? = nil, minLength: Int? = nil,
        maxLength: Int? = nil, values: [String]? = nil, example: String? = nil
    ) -> JSONValue {
        make([
            "type": .string("string"), "description": description.map(JSONValue.string), "format": format.map(JSONValue.string),
            "pattern": pattern.map(JSONValue.string), "minLength": minLength.map(number),
            "maxLength": maxLength.map(number), "enum": values.map { .array($0.map(JSONValue.string)) },
            "examples": example.map { .array([.string($0)]) },
        ])
    }

    /// The raw values of an enumeration, in its order.
    static func enumeration<E: CaseIterable & RawRepresentable>(_ type: E.Type, _ description: String? = nil) -> JSONValue
    where E.RawValue == String {
        string(description, values: E.allCases.map(\.rawValue))
    }

    static func integer(_ description: String? = nil, minimum: Int64? = nil, maximum: Int64? = nil) -> JSONValue {
        make([
            "type": .string("integer"), "description": description.map(JSONValue.string),
            "minimum": minimum.map { .number(Double($0)) }, "maximum": maximum.map { .number(Double($0)) },
        ])
    }

    static func number(
        _ description: String? = nil, minimum: Double? = nil, maximum: Double? = nil, exclusiveMinimum: Double? = nil
    ) -> JSONValue {
        make([
            "type": .string("number"), "description": description.map(JSONValue.string), "minimum": minimum.map(JSONValue.number),
            "maximum": maximum.map(JSONValue.number), "exclusiveMinimum": exclusiveMinimum.map(JSONValue.number),
        ])
    }

    static func boolean(_ description: String? = nil) -> JSONValue {
        make(["type": .string("boolean"), "description": description.map(JSONValue.string)])
    }

    static func constant(_ value: String) -> JSONValue {
        .object(["type": .string("string"), "const": .string(value)])
    }

    static func array(_ items: JSONValue, _ description: String? = nil, minItems: Int? = nil, maxItems: Int? = nil) -> JSONValue {
        make([
            "type": .string("array"), "items": items, "description": description.map(JSONValue.string),
            "minItems": minItems.map(number), "maxItems": maxItems.map(number),
        ])
    }

    /// An object of these members, in this order; those named in `required` must be there.
    /// - Parameter additional: whether it may have others.
    static func object(
        _ properties: [(String, JSONValue)], required: [String], description: String? = nil, additional: Bool = false
    ) -> JSONValue {
        var members = JSONObject()
        for (name, schema) in properties { members[name] = schema }
        return make([
            "type": .string("object"), "description": description.map(JSONValue.string), "properties": .object(members),
            "required": required.isEmpty ? nil : .array(required.map(JSONValue.string)), "additionalProperties": .bool(additional),
        ])
    }

    /// An object whose every member is given and is as its schema says, or null.
    static func record(_ properties: [(String, JSONValue)], description: String? = nil) -> JSONValue {
        object(properties.map { ($0.0, nullable($0.1)) }, required: properties.map(\.0), description: description)
    }

    /// `schema`, or null.
    static func nullable(_ schema: JSONValue) -> JSONValue {
        guard case .object(var members) = schema, case .string(let type)? = members["type"] else {
            return .object(["anyOf": .array([schema, .object(["type": .string("null")])])])
        }
        members["type"] = .array([.string(type), .string("null")])
        if case .array(let values)? = members["enum"] { members["enum"] = .array(values + [.null]) }
        return .object(members)
    }

    static func oneOf(_ schemas: [JSONValue], _ description: String? = nil) -> JSONValue {
        make(["oneOf": .array(schemas), "description": description.map(JSONValue.string)])
    }

    /// `schema` with a description, or its description replaced.
    static func described(_ schema: JSONValue, _ description: String) -> JSONValue {
        guard case .object(var members) = schema, members["$ref"] == nil else {
            return .object(["allOf": .array([schema]), "description": .string(description)])
        }
        members["description"] = .string(description)
        return .object(members)
    }

    /// `schema` with one more keyword.
    static func adding(_ keyword: String, _ value: JSONValue, to schema: JSONValue) -> JSONValue {
        guard case .object(var members) = schema else { return schema }
        members[keyword] = value
        return .object(members)
    }

    private static func number(_ value: Int) -> JSONValue { .number(Double(value)) }

    private static func make(_ members: [String: JSONValue?]) -> JSONValue {
        var object = JSONObject()
        for (name, value) in members { if let value { object[name] = value } }
        return .object(object)
    }
}

// MARK: Tables

extension Schema {
    /// A value of a column, as the JSON of ``Output`` writes it (missing: null).
    static func value(of column: Column) -> JSONValue {
        let schema: JSONValue
        switch column.kind {
        case .text: schema = string()
        case .integer: schema = integer()
        case .number: schema = number()
        case .metres: schema = number("metres")
        case .latitude: schema = number("degrees, WGS-84", minimum: -90, maximum: 90)
        case .longitude: schema = number("degrees, WGS-84", minimum: -180, maximum: 180)
        case .time: schema = string("RFC 3339, in UTC, to the microsecond", format: "date-time")
        case .bool: schema = boolean()
        case .counts:
            return make([
                "type": .string("object"), "description": .string("whole numbers by name"),
                "additionalProperties": integer(minimum: 0),
            ])
        }
        return nullable(schema)
    }

    /// A row of `columns`: every column a member, in order.
    static func row(_ columns: [Column], description: String? = nil) -> JSONValue {
        object(columns.map { ($0.name, value(of: $0)) }, required: columns.map(\.name), description: description)
    }

    /// The GeoJSON FeatureCollection of rows of `columns`: a Point of each row's first latitude and longitude (null
    /// without them), the other columns as its properties.
    static func featureCollection(_ columns: [Column]) -> JSONValue {
        let latitude = columns.firstIndex { $0.kind == .latitude }
        let longitude = columns.firstIndex { $0.kind == .longitude }
        let properties = columns.indices.filter { $0 != latitude && $0 != longitude }.map { columns[$0] }
        let point = object(
            [("type", constant("Point")), ("coordinates", array(number(), "[longitude, latitude], WGS-84", minItems: 2, maxItems: 2))],
            required: ["type", "coordinates"])
        let feature = object(
            [("type", constant("Feature")), ("geometry", nullable(point)), ("properties", row(properties))],
            required: ["type", "geometry", "properties"])
        return object(
            [("type", constant("FeatureCollection")), ("features", array(feature))], required: ["type", "features"],
            description: "GeoJSON (RFC 7946)")
    }
}
