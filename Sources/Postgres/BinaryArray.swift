internal import CLibPQ
import CivilCalendar
import Foundation

/// A one-dimensional array sent as a binary bind parameter: each value in its type's binary form, which the server
/// reads without parsing text (for the thousands of values of an `unnest` upsert). The statement must give the
/// parameter the same array type (`$1::float8[]` for doubles).
public struct BinaryArray: Sendable, Equatable {
    /// PostgreSQL's array wire format: dimensions, flags, element type, length and lower bound, then each element's
    /// length and bytes.
    let bytes: [UInt8]

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
                Self.append(Int32(-1), to: &bytes)
            }
        }
        self.bytes = bytes
    }

    private static func append(text: String, to bytes: inout [UInt8]) throws {
        func append(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let base = utf8.baseAddress else {
                Self.append(Int32(0), to: &bytes)
                return true
            }
            guard memchr(base, 0, utf8.count) == nil else { return false }
            Self.append(Int32(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
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
        self.init(elementType: 701, fixedWidth: 8, values) { Self.append($0.bitPattern, to: &$1) }
    }

    /// `int8[]`.
    public init(_ values: [Int64]) {
        self.init(elementType: 20, fixedWidth: 8, values) { Self.append($0, to: &$1) }
    }

    /// `boolean[]`.
    public init(_ values: [Bool]) {
        self.init(elementType: 16, fixedWidth: 1, values) { $1.append($0 ? 1 : 0) }
    }

    /// `uuid[]`.
    public init(_ values: [UUID]) {
        self.init(elementType: 2950, fixedWidth: 16, values) { value, bytes in
            withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
        }
    }

    /// `date[]`, of days since 1970-01-01 (``CivilDate/daysSince1970``).
    public init(days values: [Int]) {
        self.init(elementType: 1082, fixedWidth: 4, values) { value, bytes in
            // PostgreSQL counts from 2000-01-01.
            Self.append(Int32(value - 10_957), to: &bytes)
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

    private static func append(timestamp: Date, to bytes: inout [UInt8]) {
        // PostgreSQL counts from 2000-01-01 UTC.
        append(Timestamp.microseconds(timestamp) - 946_684_800_000_000, to: &bytes)
    }

    private init<Value>(elementType: UInt32, fixedWidth: Int, _ values: [Value], _ write: (Value, inout [UInt8]) -> Void) {
        var bytes = Self.header(elementType: elementType, count: values.count, elementBytes: values.count * fixedWidth)
        for value in values {
            Self.append(Int32(fixedWidth), to: &bytes)
            write(value, &bytes)
        }
        self.bytes = bytes
    }

    /// Nil values are NULL.
    private init<Value>(
        elementType: UInt32, fixedWidth: Int, _ values: [Value?], _ write: (Value, inout [UInt8]) -> Void
    ) {
        var bytes = Self.header(
            elementType: elementType, count: values.count, elementBytes: values.count * fixedWidth,
            hasNulls: values.contains { $0 == nil })
        for value in values {
            if let value {
                Self.append(Int32(fixedWidth), to: &bytes)
                write(value, &bytes)
            } else {
                Self.append(Int32(-1), to: &bytes)
            }
        }
        self.bytes = bytes
    }

    /// One dimension of `count` elements from index 1, flagged when some are NULL; an empty array has no dimension.
    private static func header(elementType: UInt32, count: Int, elementBytes: Int, hasNulls: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + 4 * count + elementBytes)
        append(Int32(count == 0 ? 0 : 1), to: &bytes)
        append(Int32(hasNulls ? 1 : 0), to: &bytes)
        append(elementType, to: &bytes)
        if count > 0 {
            append(Int32(count), to: &bytes)
            append(Int32(1), to: &bytes)
        }
        return bytes
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
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
        var binaries: [Int: [UInt8]] = [:]
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
        _ binaries: [Int: [UInt8]], count: Int, _ body: ([UnsafePointer<CChar>?]) throws -> R
    ) rethrows -> R {
        var storage: [UInt8] = []
        var offsets: [Int: Int] = [:]
        for (index, bytes) in binaries.sorted(by: { $0.key < $1.key }) {
            offsets[index] = storage.count
            storage.append(contentsOf: bytes)
        }
        storage.append(0)  // never empty, so there is a base address
        return try storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            return try body((0..<count).map { index in offsets[index].map { base + $0 } })
        }
    }
}
