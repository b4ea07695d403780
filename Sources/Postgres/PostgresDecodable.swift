import CivilCalendar
import Foundation

/// A value read from a column in text format.
public protocol PostgresDecodable {
    /// Reads the column text; throws when the text is not a value of this type.
    init(postgresText: String) throws

    /// The value SQL NULL decodes to, or `nil` when this type has none (the default).
    static var postgresNull: Self? { get }

    /// Reads an array of such values. The default reads an array literal; `UInt8` overrides it
    /// so that `[UInt8]` reads `bytea`.
    static func postgresArray(fromText text: String) throws -> [Self]
}

extension PostgresDecodable {
    public static var postgresNull: Self? { nil }

    public static func postgresArray(fromText text: String) throws -> [Self] {
        try ArrayLiteralParser.decode(text)
    }
}

private func integer<T: FixedWidthInteger>(_ text: String, _ type: T.Type) throws -> T {
    guard let value = T(text) else { throw PostgresError(.decoding, "not a \(T.self)") }
    return value
}

extension Int: PostgresDecodable {
    public init(postgresText: String) throws { self = try integer(postgresText, Int.self) }
}

extension Int16: PostgresDecodable {
    public init(postgresText: String) throws { self = try integer(postgresText, Int16.self) }
}

extension Int32: PostgresDecodable {
    public init(postgresText: String) throws { self = try integer(postgresText, Int32.self) }
}

extension Int64: PostgresDecodable {
    public init(postgresText: String) throws { self = try integer(postgresText, Int64.self) }
}

extension UInt8: PostgresDecodable {
    public init(postgresText: String) throws { self = try integer(postgresText, UInt8.self) }

    /// Bytes come from `bytea` in hex form.
    public static func postgresArray(fromText text: String) throws -> [UInt8] {
        guard let bytes = ByteaHex.decode(text) else {
            throw PostgresError(.decoding, "not bytea in hex form")
        }
        return bytes
    }
}

extension Double: PostgresDecodable {
    public init(postgresText: String) throws {
        switch postgresText {
        case "NaN": self = .nan
        case "Infinity": self = .infinity
        case "-Infinity": self = -.infinity
        default:
            guard let value = Double(postgresText), value.isFinite else {
                throw PostgresError(.decoding, "not a number")
            }
            self = value
        }
    }
}

extension Bool: PostgresDecodable {
    public init(postgresText: String) throws {
        switch postgresText {
        case "t", "true": self = true
        case "f", "false": self = false
        default: throw PostgresError(.decoding, "not a boolean")
        }
    }
}

extension String: PostgresDecodable {
    public init(postgresText: String) throws { self = postgresText }
}

extension UUID: PostgresDecodable {
    public init(postgresText: String) throws {
        guard let uuid = UUID(text: postgresText) else { throw PostgresError(.decoding, "not a UUID") }
        self = uuid
    }
}

extension Date: PostgresDecodable {
    public init(postgresText: String) throws {
        guard let date = Timestamp.parse(postgresText) else {
            throw PostgresError(.decoding, "not an ISO timestamp")
        }
        self = date
    }
}

extension Data: PostgresDecodable {
    public init(postgresText: String) throws {
        guard let bytes = ByteaHex.decode(postgresText) else {
            throw PostgresError(.decoding, "not bytea in hex form")
        }
        self = Data(bytes)
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresText: String) throws { self = try Wrapped(postgresText: postgresText) }
    public static var postgresNull: Self? { .some(.none) }
}

extension Array: PostgresDecodable where Element: PostgresDecodable {
    public init(postgresText: String) throws { self = try Element.postgresArray(fromText: postgresText) }
}

/// Reads PostgreSQL array literals, one dimension at a time: a nested array's text goes to
/// the element type, which reads it as an array in turn.
enum ArrayLiteralParser {
    static func decode<Element: PostgresDecodable>(_ text: String) throws -> [Element] {
        var elements: [Element] = []
        for item in try split(text) {
            if let item {
                elements.append(try Element(postgresText: item))
            } else if let null = Element.postgresNull {
                elements.append(null)
            } else {
                throw PostgresError(.decoding, "array holds NULL; decode as an array of optionals")
            }
        }
        return elements
    }

    /// The element texts of a one-dimensional literal (`nil` for NULL).
    static func split(_ text: String) throws -> [String?] {
        var scalars = Array(text.unicodeScalars)[...]
        // Explicit bounds, as in `[0:2]={1,2,3}`.
        if scalars.first == "[", let equals = scalars.firstIndex(of: "=") {
            scalars = scalars[(equals + 1)...]
        }
        guard scalars.first == "{", scalars.last == "}" else {
            throw PostgresError(.decoding, "not an array literal")
        }
        scalars = scalars.dropFirst().dropLast()
        var items: [String?] = []
        guard !scalars.isEmpty else { return items }
        var index = scalars.startIndex
        while true {
            while index < scalars.endIndex, scalars[index] == " " { index += 1 }
            var item = String.UnicodeScalarView()
            var quoted = false
            if index < scalars.endIndex, scalars[index] == "\"" {
                quoted = true
                index += 1
                while index < scalars.endIndex, scalars[index] != "\"" {
                    if scalars[index] == "\\" { index += 1 }
                    guard index < scalars.endIndex else { break }
                    item.append(scalars[index])
                    index += 1
                }
                guard index < scalars.endIndex else { throw PostgresError(.decoding, "unterminated quote in array") }
                index += 1
            } else if index < scalars.endIndex, scalars[index] == "{" {
                // A nested dimension: keep its text whole, braces and quotes included.
                var depth = 0
                var inQuotes = false
                repeat {
                    let scalar = scalars[index]
                    item.append(scalar)
                    if inQuotes {
                        if scalar == "\\", index + 1 < scalars.endIndex {
                            index += 1
                            item.append(scalars[index])
                        } else if scalar == "\"" {
                            inQuotes = false
                        }
                    } else if scalar == "\"" {
                        inQuotes = true
                    } else if scalar == "{" {
                        depth += 1
                    } else if scalar == "}" {
                        depth -= 1
                    }
                    index += 1
                } while depth > 0 && index < scalars.endIndex
                quoted = true
            } else {
                while index < scalars.endIndex, scalars[index] != "," {
                    if scalars[index] == "\\" { index += 1 }
                    guard index < scalars.endIndex else { break }
                    item.append(scalars[index])
                    index += 1
                }
                while item.last == " " { item.removeLast() }
            }
            let value = String(item)
            items.append(!quoted && value.uppercased() == "NULL" ? nil : value)
            while index < scalars.endIndex, scalars[index] == " " { index += 1 }
            if index == scalars.endIndex { break }
            guard scalars[index] == "," else { throw PostgresError(.decoding, "malformed array literal") }
            index += 1
        }
        return items
    }
}
