internal import CLibPQ
import CivilCalendar
import Foundation

/// A one-dimensional array sent as a binary bind parameter: each value in its type's binary form, which the server
/// reads without parsing text (for the thousands of values of an `unnest` upsert). The statement must give the
/// parameter the same array type (`$1::float8[]` for doubles).
///
/// An element is written as a binary COPY field is, its 4-byte length and its bytes, through ``CopyBytes``: room made
/// once for the whole array, each element written at once rather than appended to an array a few bytes at a time.
public struct BinaryArray: Sendable, Equatable {
    /// PostgreSQL's array wire format: dimensions, flags, element type, length and lower bound, then each element's
    /// length and bytes.
    let bytes: CopyBytes

    /// `text[]`.
    /// - Throws: ``PostgresError`` when a value holds a NUL character, which PostgreSQL text cannot hold.
    public init(_ values: [String]) throws {
        var bytes = Self.header(elementType: 25, count: values.count, elementBytes: values.reduce(0) { $0 + $1.utf8.count })
        for value in values {
            try Self.append(text: value, to: &bytes)
        }
        self.bytes = bytes
    }

    /// `text[]` whose nil values are NULL.
    /// - Throws: ``PostgresError`` when a value holds a NUL character, which PostgreSQL text cannot hold.
    public init(_ values: [String?]) throws {
        var bytes = Self.header(
            elementType: 25, count: values.count, elementBytes: values.reduce(0) { $0 + ($1?.utf8.count ?? 0) },
            hasNulls: values.contains(nil))
        for value in values {
            if let value {
                try Self.append(text: value, to: &bytes)
            } else {
                bytes.append(bigEndian: Int32(-1))
            }
        }
        self.bytes = bytes
    }

    private static func append(text: String, to bytes: inout CopyBytes) throws {
        func append(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            if let base = utf8.baseAddress, memchr(base, 0, utf8.count) != nil { return false }
            bytes.appendField(utf8)
            return true
        }
        // In place when the string is contiguous, as a native one is, rather than through a copy.
        let valid = text.utf8.withContiguousStorageIfAvailable(append) ?? {
            var copy = text
            return copy.withUTF8(append)
        }()
        guard valid else {
            throw PostgresError(.encoding, "a text array value contains a NUL character, which PostgreSQL text cannot hold")
        }
    }

    /// `float8[]`.
    public init(_ values: [Double]) {
        self.init(elementType: 701, fixedWidth: 8, values) { $1.appendField(bigEndian: $0.bitPattern) }
    }

    /// `int8[]`.
    public init(_ values: [Int64]) {
        self.init(elementType: 20, fixedWidth: 8, values) { $1.appendField(bigEndian: UInt64(bitPattern: $0)) }
    }

    /// `boolean[]`.
    public init(_ values: [Bool]) {
        self.init(elementType: 16, fixedWidth: 1, values) { $1.appendField($0 ? 1 : 0) }
    }

    /// `uuid[]`.
    public init(_ values: [UUID]) {
        self.init(elementType: 2950, fixedWidth: 16, values) { value, bytes in
            withUnsafeBytes(of: value.uuid) { bytes.appendField($0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// `date[]`, of days since 1970-01-01 (``CivilDate/daysSince1970``).
    public init(days values: [Int]) {
        self.init(elementType: 1082, fixedWidth: 4, values) { value, bytes in
            // PostgreSQL counts from 2000-01-01.
            bytes.append(bigEndian: Int32(4))
            bytes.append(bigEndian: Int32(value - 10_957))
        }
    }

    /// `timestamptz[]`, each rounded to the microsecond as PostgreSQL keeps it (as in text).
    public init(timestamps values: [Date]) {
        self.init(elementType: 1184, fixedWidth: 8, values, Self.append(timestamp:to:))
    }

    /// `timestamptz[]` whose nil values are NULL.
    public init(timestamps values: [Date?]) {
        self.init(elementType: 1184, fixedWidth: 8, values, Self.append(timestamp:to:))
    }

    private static func append(timestamp: Date, to bytes: inout CopyBytes) {
        // PostgreSQL counts from 2000-01-01 UTC.
        bytes.appendField(bigEndian: UInt64(bitPattern: Timestamp.microseconds(timestamp) - 946_684_800_000_000))
    }

    /// - Parameter write: appends a value as an element, its length and its bytes.
    private init<Value>(elementType: UInt32, fixedWidth: Int, _ values: [Value], _ write: (Value, inout CopyBytes) -> Void) {
        var bytes = Self.header(elementType: elementType, count: values.count, elementBytes: values.count * fixedWidth)
        for value in values {
            write(value, &bytes)
        }
        self.bytes = bytes
    }

    /// Nil values are NULL.
    private init<Value>(
        elementType: UInt32, fixedWidth: Int, _ values: [Value?], _ write: (Value, inout CopyBytes) -> Void
    ) {
        var bytes = Self.header(
            elementType: elementType, count: values.count, elementBytes: values.count * fixedWidth,
            hasNulls: values.contains { $0 == nil })
        for value in values {
            if let value {
                write(value, &bytes)
            } else {
                bytes.append(bigEndian: Int32(-1))
            }
        }
        self.bytes = bytes
    }

    /// One dimension of `count` elements from index 1, flagged when some are NULL; an empty array has no dimension.
    /// Room is made for the elements, each with its 4-byte length, so that they are written without growing it.
    private static func header(elementType: UInt32, count: Int, elementBytes: Int, hasNulls: Bool = false) -> CopyBytes {
        var bytes = CopyBytes()
        bytes.reserve(more: 20 + 4 * count + elementBytes)
        bytes.append(bigEndian: Int32(count == 0 ? 0 : 1))
        bytes.append(bigEndian: Int32(hasNulls ? 1 : 0))
        bytes.append(bigEndian: elementType)
        if count > 0 {
            bytes.append(bigEndian: Int32(count))
            bytes.append(bigEndian: Int32(1))
        }
        return bytes
    }
}

/// A bind parameter of ``Connection/query(_:parameters:)``: a value sent as text, or an array sent in binary.
public enum QueryParameter {
    case text(any PostgresEncodable)
    case binary(BinaryArray)
}

extension Connection {
    /// Runs one statement whose parameters are sent as text or, for ``BinaryArray``s, in binary.
    @discardableResult
    public func query(_ sql: String, parameters: [QueryParameter]) throws -> QueryResult {
        var texts: [String?] = []
        var binaries: [Int: CopyBytes] = [:]
        for (index, parameter) in parameters.enumerated() {
            switch parameter {
            case .text(let value):
                texts.append(try Self.parameterTexts([value])[0])
            case .binary(let array):
                texts.append("")
                binaries[index] = array.bytes
            }
        }
        let lengths = parameters.indices.map { Int32(binaries[$0]?.count ?? 0) }
        let formats = parameters.indices.map { Int32(binaries[$0] == nil ? 0 : 1) }
        return try exclusively {
            let result = try Self.withCStrings(texts) { textValues in
                try Self.withBinaries(binaries, count: parameters.count) { binaryValues in
                    let values = zip(textValues, binaryValues).map { text, binary in binary ?? text }
                    return try exec(sql) { conn in
                        PQsendQueryParams(conn, sql, Int32(values.count), nil, values, lengths, formats, 0)
                    }
                }
            }
            return try check(result, query: sql)
        }
    }

    /// Calls `body` with a pointer to each binary parameter's bytes at its index (nil elsewhere), valid only inside it.
    private static func withBinaries<R>(
        _ binaries: [Int: CopyBytes], count: Int, _ body: ([UnsafePointer<CChar>?]) throws -> R
    ) rethrows -> R {
        // Each array's bytes where they are: valid while `binaries` holds them. (An array always has its header.)
        try withExtendedLifetime(binaries) {
            try body((0..<count).map { index in
                binaries[index].map { UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self) }
            })
        }
    }
}
