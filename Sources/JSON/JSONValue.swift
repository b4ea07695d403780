import Foundation

/// A parsed JSON document that keeps the JSON types, so validation can say which field had the wrong one.
///
/// Numbers are held as `Double`, as JSON does not distinguish integers; integers beyond 2^53 lose precision.
/// Objects keep their members sorted by name (``JSONObject``). Parsing follows I-JSON (RFC 7493) where it
/// matters for meaning: an object that names a member twice is refused, so that the bytes stored mean one thing.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses JSON text (any value, not only objects or arrays).
    /// - Throws: `JSONValueError.malformed` when the bytes are not JSON, or hold a number no `Double` can represent;
    ///   `JSONValueError.duplicateKey` when an object names a member twice.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }
}

/// Why a `JSONValue` could not be made.
public enum JSONValueError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    /// An object names the member at `path` (`outer.name`, `list[2].name`) twice.
    case duplicateKey(path: String)

    public var description: String {
        switch self {
        case .malformed(let reason): return "malformed JSON: \(reason)"
        case .duplicateKey(let path): return "\(path) is given more than once in its object"
        }
    }

    /// A duplicate's path one level out: `inner` (`name`, `[2].name`, ...) under the member name or `[index]` `outer`.
    static func path(_ outer: String, _ inner: String) -> String {
        inner.hasPrefix("[") ? outer + inner : outer + "." + inner
    }
}

extension JSONValue {
    /// The members of an object, or nil.
    public var objectValue: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string, or nil.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number, or nil.
    public var numberValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The boolean, or nil.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The elements of an array, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type name, for messages: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
