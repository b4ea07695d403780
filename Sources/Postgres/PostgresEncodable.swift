import CivilCalendar
import Foundation

/// A value sent as a text-format bind parameter.
public protocol PostgresEncodable {
    /// The value as PostgreSQL's input function for its type reads it.
    var postgresText: String { get }

    /// The text of an array of such values. The default writes an array literal; `UInt8`
    /// overrides it so that `[UInt8]` is sent as `bytea`.
    static func postgresArrayText(_ elements: [Self]) -> String
}

extension PostgresEncodable {
    public static func postgresArrayText(_ elements: [Self]) -> String {
        ArrayLiteral.encode(elements)
    }
}

/// Lets the encoder recognise SQL NULL and nested arrays without public API.
protocol PostgresNullable {
    var isPostgresNull: Bool { get }
}

protocol PostgresArrayValue {}

extension String: PostgresEncodable {
    public var postgresText: String { self }
}

extension Substring: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int16: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension UInt8: PostgresEncodable {
    public var postgresText: String { String(self) }

    /// Bytes are `bytea`, not `smallint[]`.
    public static func postgresArrayText(_ elements: [UInt8]) -> String {
        ByteaHex.encode(elements)
    }
}

extension Double: PostgresEncodable {
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    public var postgresText: String { self ? "true" : "false" }
}

extension UUID: PostgresEncodable {
    public var postgresText: String { lowercasedText }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, e.g. `2026-11-29T10:00:00.123456Z`, for `timestamptz`.
    public var postgresText: String { Timestamp.format(self) }

    /// The instant ``postgresText`` reads back as (`Date(postgresText:)`): this one rounded to the microsecond
    /// PostgreSQL keeps.
    public var postgresInstant: Date { Timestamp.readBack(self) }
}

extension Data: PostgresEncodable {
    /// `bytea` in hex form: `\x0a1b...`.
    public var postgresText: String { ByteaHex.encode(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    /// Only used inside arrays, where `nil` is written `NULL`; a `nil` parameter is SQL NULL.
    public var postgresText: String {
        switch self {
        case .some(let value): value.postgresText
        case .none: "NULL"
        }
    }
}

extension Optional: PostgresNullable {
    var isPostgresNull: Bool { self == nil }
}

extension Array: PostgresEncodable where Element: PostgresEncodable {
    public var postgresText: String { Element.postgresArrayText(self) }
}

extension Array: PostgresArrayValue {}

/// JSON sent as text, for `json` and `jsonb` columns.
public struct PostgresJSON: PostgresEncodable, PostgresDecodable, Sendable, Equatable {
    public var data: Data

    public init(_ data: Data) {
        self.data = data
    }

    /// Encodes `value` with `encoder`.
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        self.data = try encoder.encode(value)
    }

    public var postgresText: String { String(decoding: data, as: UTF8.self) }

    public init(postgresText: String) throws {
        self.data = Data(postgresText.utf8)
    }
}

/// PostgreSQL array literals: `{"a","b \"c\"",NULL}`.
enum ArrayLiteral {
    static func encode<Element: PostgresEncodable>(_ elements: [Element]) -> String {
        // Decided once per array: dynamic casts per element would dominate large batches.
        let mayBeNull = Element.self is any PostgresNullable.Type
        // A nested array is a further dimension, written bare; bytes are a bytea value.
        let isDimension = Element.self is any PostgresArrayValue.Type && Element.self != [UInt8].self
        var out: [UInt8] = []
        out.reserveCapacity(16 * elements.count + 2)
        out.append(UInt8(ascii: "{"))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if mayBeNull, let nullable = element as? any PostgresNullable, nullable.isPostgresNull {
                out.append(contentsOf: "NULL".utf8)
            } else if isDimension || (mayBeNull && element is any PostgresArrayValue && !(element is [UInt8])) {
                out.append(contentsOf: element.postgresText.utf8)
            } else {
                quote(element.postgresText, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Always quoted, so that empty strings, `NULL`, spaces, commas and braces stay values.
    private static func quote(_ value: String, into out: inout [UInt8]) {
        var value = value
        out.append(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            var runStart = 0
            for position in 0..<bytes.count where bytes[position] == UInt8(ascii: "\\") || bytes[position] == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                out.append(UInt8(ascii: "\\"))
                runStart = position
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Bytes as lowercase hex digits: bytea's text form (`\x` and the digits), and the digits alone (hashes, ids).
public enum ByteaHex {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        out.reserveCapacity(2 + bytes.underestimatedCount * 2)
        appendDigits(of: bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The digits alone, two a byte, without bytea's `\x`.
    public static func digitsText(of bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        appendDigits(of: bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Two lowercase hex digits a byte.
    static func appendDigits(of bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        for byte in bytes {
            let (high, low) = digits(of: byte)
            out.append(high)
            out.append(low)
        }
    }

    /// A byte's two lowercase hex digits, the high one first. Reckoned, not looked up: a table is a global, and each
    /// read of one checks that it was made.
    static func digits(of byte: UInt8) -> (UInt8, UInt8) {
        (digit(byte >> 4), digit(byte & 0x0f))
    }

    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    static func decode(_ text: String) -> [UInt8]? {
        var utf8 = text.utf8[...]
        guard utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) else { return nil }
        utf8 = utf8.dropFirst(2)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for character in utf8 {
            guard let value = nibble(character) else { return nil }
            if let h = high {
                bytes.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// The value of a hex digit in either case.
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
