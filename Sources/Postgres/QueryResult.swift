internal import CLibPQ
import Foundation

/// Owns one `PGresult` and clears it when the last row referring to it is gone.
final class ResultHandle: @unchecked Sendable {
    // Safe to share: a PGresult is never modified after libpq returns it.
    let result: OpaquePointer
    let columnNames: [String]

    init(_ result: OpaquePointer) {
        self.result = result
        let count = Int(PQnfields(result))
        self.columnNames = (0..<count).map { String(cString: PQfname(result, Int32($0))) }
    }

    deinit {
        PQclear(result)
    }
}

/// The rows a statement returned, read lazily from libpq's result.
public struct QueryResult: Sequence, Sendable {
    let handle: ResultHandle?

    init(_ handle: ResultHandle?) {
        self.handle = handle
    }

    /// The number of rows returned.
    public var count: Int {
        handle.map { Int(PQntuples($0.result)) } ?? 0
    }

    public var isEmpty: Bool { count == 0 }

    /// Rows inserted, updated, deleted, copied... as the command tag says (`PQcmdTuples`).
    public var affectedRows: Int {
        guard let handle, let text = PQcmdTuples(handle.result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The column names, in order.
    public var columns: [String] { handle?.columnNames ?? [] }

    public subscript(index: Int) -> Row {
        precondition(index >= 0 && index < count, "row \(index) out of range 0..<\(count)")
        return Row(handle: handle!, index: Int32(index))
    }

    /// The first row, if any.
    public var first: Row? { isEmpty ? nil : self[0] }

    public func makeIterator() -> Iterator {
        Iterator(result: self)
    }

    public struct Iterator: IteratorProtocol {
        let result: QueryResult
        var position = 0

        public mutating func next() -> Row? {
            guard position < result.count else { return nil }
            defer { position += 1 }
            return result[position]
        }
    }
}

/// One row of a `QueryResult`.
public struct Row: Sendable {
    let handle: ResultHandle
    let index: Int32

    public var columnCount: Int { handle.columnNames.count }

    /// Whether the column is SQL NULL.
    public func isNull(_ column: Int) throws -> Bool {
        try check(column)
        return PQgetisnull(handle.result, index, Int32(column)) == 1
    }

    /// The column's value as `T`. SQL NULL decodes to `nil` when `T` is optional and throws
    /// otherwise; a text that is not a `T` throws `PostgresError(.decoding)` naming the column.
    /// Inlinable, so that callers get it specialised for their `T`: reading result sets of many rows showed the
    /// generic version's type lookups.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws -> T {
        guard let text = try text(at: column) else {
            guard let null = T.postgresNull else {
                throw failure(column, T.self, "is NULL; decode as \(T.self)? to accept NULL")
            }
            return null
        }
        do {
            return try T(postgresText: text)
        } catch let error as PostgresError where error.kind == .decoding {
            throw failure(column, T.self, "cannot be read as \(T.self): \(error.message)")
        }
    }

    /// The column's text as bytes, valid only inside `body`; nil for SQL NULL. For a reader that parses the text
    /// itself, without a `String` in between.
    public func withBytes<R>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) throws -> R {
        try check(column)
        let column32 = Int32(column)
        guard PQgetisnull(handle.result, index, column32) == 0, let value = PQgetvalue(handle.result, index, column32) else {
            return try body(nil)
        }
        let length = Int(PQgetlength(handle.result, index, column32))
        return try value.withMemoryRebound(to: UInt8.self, capacity: length) {
            try body(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The value of the column named `name` (exactly as the result names it).
    public func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try decode(columnIndex(name), as: type)
    }

    /// A `json` or `jsonb` column decoded with `decoder`; `Data` gives the raw JSON bytes.
    public func decodeJSON<T: Decodable>(
        _ column: Int, as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        let json = try decode(column, as: PostgresJSON.self)
        if let data = json.data as? T { return data }
        do {
            return try decoder.decode(T.self, from: json.data)
        } catch {
            throw failure(column, T.self, "holds JSON that does not decode as \(T.self): \(error)")
        }
    }

    public func decodeJSON<T: Decodable>(
        _ name: String, as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        try decodeJSON(columnIndex(name), as: type, decoder: decoder)
    }

    /// The index of the column named `name`.
    public func columnIndex(_ name: String) throws -> Int {
        guard let column = handle.columnNames.firstIndex(of: name) else {
            throw PostgresError(.decoding, "no column \"\(name)\"; the result has \(handle.columnNames)")
        }
        return column
    }

    /// The column's text; nil for SQL NULL.
    @usableFromInline
    func text(at column: Int) throws -> String? {
        try withBytes(column) { bytes in bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    private func check(_ column: Int) throws {
        guard column >= 0 && column < handle.columnNames.count else {
            throw PostgresError(.decoding, "no column \(column); the result has \(handle.columnNames.count)")
        }
    }

    @usableFromInline
    func failure(_ column: Int, _ type: Any.Type, _ what: String) -> PostgresError {
        let name = handle.columnNames[column]
        let pgType = PostgresTypeName.name(ofOID: PQftype(handle.result, Int32(column)))
        return PostgresError(.decoding, "column \"\(name)\" (\(column), \(pgType)) \(what)")
    }
}

enum PostgresTypeName {
    static func name(ofOID oid: Oid) -> String {
        switch oid {
        case 16: "boolean"
        case 17: "bytea"
        case 20: "bigint"
        case 21: "smallint"
        case 23: "integer"
        case 25: "text"
        case 114: "json"
        case 700: "real"
        case 701: "double precision"
        case 1043: "varchar"
        case 1082: "date"
        case 1114: "timestamp"
        case 1184: "timestamptz"
        case 1700: "numeric"
        case 2950: "uuid"
        case 3802: "jsonb"
        default: "type oid \(oid)"
        }
    }
}
