internal import CLibPQ
import Foundation

/// The two forms of COPY data: text, escaped values in their PostgreSQL text form; binary, each value in its type's
/// binary form, which the server stores without parsing (for rows of known column types, written many at a time).
public enum CopyFormat: Sendable, Equatable {
    case text
    case binary
}

extension Connection {
    /// Runs `COPY ... FROM STDIN` and streams the rows `write` produces.
    ///
    /// Rows are buffered and sent in large chunks. When `write` throws, the COPY is aborted
    /// (nothing is stored) and the error rethrown.
    /// - Parameter format: must be the statement's: `.binary` for `COPY ... WITH (FORMAT binary)`.
    /// - Returns: the number of rows the server stored.
    @discardableResult
    public func copyFrom(_ copySQL: String, format: CopyFormat = .text, _ write: (CopyWriter) throws -> Void) throws -> Int {
        try exclusively { try copying(copySQL, format: format, write) }
    }

    private func copying(_ copySQL: String, format: CopyFormat, _ write: (CopyWriter) throws -> Void) throws -> Int {
        guard let start = try exec(copySQL, kind: .copy, { conn in PQsendQuery(conn, copySQL) }) else {
            throw error(from: nil, query: copySQL, kind: .copy)
        }
        let started = PQresultStatus(start)
        guard started == PGRES_COPY_IN else {
            defer { PQclear(start) }
            if started == PGRES_COMMAND_OK || started == PGRES_TUPLES_OK {
                throw PostgresError(.copy, "not a COPY ... FROM STDIN statement", query: copySQL)
            }
            throw error(from: start, query: copySQL, kind: .copy)
        }
        let statementFormat: CopyFormat = PQbinaryTuples(start) == 1 ? .binary : .text
        PQclear(start)
        guard statementFormat == format else {
            _ = endCopy(failing: "the rows are not in the COPY's format", query: copySQL)
            throw PostgresError(.copy, "the COPY statement is in \(statementFormat) format and the rows in \(format)", query: copySQL)
        }

        let writer = CopyWriter(connection: self, format: format)
        defer { writer.isFinished = true }
        do {
            try write(writer)
            try writer.finish()
        } catch {
            writer.isFinished = true
            // A connection closed on a timeout has no COPY left to abort.
            guard !isClosed else { throw error }
            let serverError = endCopy(failing: "COPY aborted by the client", query: copySQL).error
            if let sendError = error as? PostgresError, sendError.kind == .copy, let serverError {
                throw serverError
            }
            throw error
        }
        writer.isFinished = true
        let outcome = endCopy(failing: nil, query: copySQL)
        if let error = outcome.error { throw error }
        return outcome.rows
    }

    /// Ends the COPY, or with a `reason` aborts it, then reads the results that end it: the row count, or the first
    /// error (the server's, or a timeout's).
    private func endCopy(failing reason: String?, query: String) -> (rows: Int, error: PostgresError?) {
        var rows = 0
        var firstError: PostgresError?
        do {
            if try whenRoom(query: query, { conn in PQputCopyEnd(conn, reason) }) == 1 {
                try flushOutput(query: query)
            } else {
                let message = configuration.redact(Self.errorMessage(try handle()))
                firstError = PostgresError(isOpen ? .copy : .connection, "could not end COPY: \(message)", query: query)
            }
            while let result = try nextResult(query: query) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK:
                    rows = Int(String(cString: PQcmdTuples(result))) ?? 0
                case PGRES_COPY_IN:
                    // Still in COPY after an end we could not send: give up on the connection.
                    close()
                    return (rows, firstError ?? PostgresError(.connection, "COPY could not be ended", query: query))
                default:
                    if firstError == nil { firstError = error(from: result, query: query, kind: .copy) }
                }
            }
        } catch {
            return (rows, firstError ?? (error as? PostgresError) ?? PostgresError(.copy, "\(error)", query: query))
        }
        return (rows, firstError)
    }

    /// Hands `bytes` of COPY data to libpq and sends them on, waiting within the timeout while the server does not
    /// take them: in non-blocking mode libpq would otherwise buffer without bound.
    func sendCopyData(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try exclusively {
            let queued = try whenRoom(query: nil) { conn in
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    PQputCopyData(conn, $0, Int32(bytes.count))
                }
            }
            guard queued == 1 else {
                let message = configuration.redact(Self.errorMessage(try handle()))
                throw PostgresError(.copy, "could not send COPY data: \(message)")
            }
            try flushOutput(query: nil)
        }
    }
}

/// Writes rows for `Connection.copyFrom`, in the COPY's format. Valid only inside the `copyFrom` closure.
public final class CopyWriter {
    private let connection: Connection
    /// The rows not sent yet; rows are written straight into it.
    private var pending: CopyRow
    var isFinished = false
    /// Rows written so far.
    public private(set) var rowCount = 0

    /// Small enough that the server is already storing rows while later ones are being formatted.
    static let flushThreshold = 1 << 16

    init(connection: Connection, format: CopyFormat) {
        self.connection = connection
        pending = CopyRow(format: format)
        pending.buffer.reserveCapacity(Self.flushThreshold + (1 << 16))
        if format == .binary {
            // The signature, no flags, no header extension.
            pending.buffer.append(contentsOf: Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8))
        }
    }

    /// Appends one row of text values; `nil` is SQL NULL. Tabs, newlines, carriage returns and backslashes
    /// in the values are escaped. In a binary COPY, every column must be of a text type.
    public func row(_ fields: [String?]) throws {
        try row { row in
            for field in fields { row.text(field) }
        }
    }

    /// Appends one row of values in their PostgreSQL text form; `nil` is SQL NULL.
    public func row(encoding values: [(any PostgresEncodable)?]) throws {
        try row(Connection.parameterTexts(values))
    }

    /// Appends one row built field by field, without first making a string of every value.
    public func row(_ build: (inout CopyRow) throws -> Void) throws {
        guard !isFinished else { throw PostgresError(.copy, "the COPY has ended; write rows inside copyFrom") }
        let rowStart = pending.buffer.count
        pending.startRow()
        do {
            try build(&pending)
            if let problem = pending.problem { throw PostgresError(.encoding, problem) }
        } catch {
            pending.buffer.removeSubrange(rowStart...)
            throw error
        }
        pending.endRow(startingAt: rowStart)
        rowCount += 1
        if pending.buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Sends what is left, with the binary format's end marker.
    func finish() throws {
        if pending.format == .binary { pending.buffer.append(contentsOf: [0xFF, 0xFF]) }
        try flush()
    }

    func flush() throws {
        guard !pending.buffer.isEmpty else { return }
        try pending.buffer.withUnsafeBufferPointer { try connection.sendCopyData($0) }
        pending.buffer.removeAll(keepingCapacity: true)
    }
}

/// Fields of a COPY row: written in place into the writer's buffer inside `CopyWriter.row`, or rendered ahead
/// (``init(format:)``) and added to a row of the same format later with ``append(_:)``.
public struct CopyRow: Sendable, Equatable {
    public let format: CopyFormat
    fileprivate var buffer: [UInt8]
    fileprivate var fields = 0
    /// Why the fields cannot be sent (a NUL character, which PostgreSQL text cannot hold); the writer throws it.
    public private(set) var problem: String?

    /// Fields to render ahead of their row.
    public init(format: CopyFormat = .text) {
        self.format = format
        buffer = []
    }

    /// Inside the writer: the next fields begin a new row (in binary, after its field count, set at the end).
    fileprivate mutating func startRow() {
        fields = 0
        problem = nil
        if format == .binary { buffer.append(contentsOf: [0, 0]) }
    }

    fileprivate mutating func endRow(startingAt start: Int) {
        switch format {
        case .text:
            buffer.append(0x0A)
        case .binary:
            buffer[start] = UInt8(truncatingIfNeeded: fields >> 8)
            buffer[start + 1] = UInt8(truncatingIfNeeded: fields)
        }
    }

    /// Starts a field: in text, after a tab; in binary, with its length (nil: SQL NULL).
    private mutating func separate(length: Int? = nil) {
        switch format {
        case .text:
            if fields > 0 { buffer.append(0x09) }
        case .binary:
            Self.appendBigEndian(Int32(length ?? -1), to: &buffer)
        }
        fields += 1
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    /// Fields rendered ahead, in their order, of the same format.
    public mutating func append(_ other: CopyRow) {
        precondition(other.format == format, "a \(other.format) COPY row appended to a \(format) one")
        guard other.fields > 0 else { return }
        if format == .text && fields > 0 { buffer.append(0x09) }
        buffer.append(contentsOf: other.buffer)
        fields += other.fields
        if problem == nil, let otherProblem = other.problem { problem = otherProblem }
    }

    /// A text value, escaped in text; nil is SQL NULL.
    public mutating func text(_ value: String?) {
        guard var value else { return null() }
        value.withUTF8 { bytes($0) }
    }

    /// UTF-8 text given as bytes, escaped in text.
    public mutating func bytes(_ value: some Collection<UInt8>) {
        if value.withContiguousStorageIfAvailable({ textBytes($0) }) == nil {
            Array(value).withUnsafeBufferPointer { textBytes($0) }
        }
    }

    private mutating func textBytes(_ value: UnsafeBufferPointer<UInt8>) {
        switch format {
        case .text:
            separate()
            escape(value)
        case .binary:
            separate(length: value.count)
            if problem == nil, value.contains(0) { noteNUL() }
            buffer.append(contentsOf: value)
        }
    }

    /// An integer: an int8 in binary.
    public mutating func integer(_ value: Int64) {
        field(binaryLength: 8) { $0.append(contentsOf: String(value).utf8) } binary: { Self.appendBigEndian(value, to: &$0) }
    }

    /// A float8, in text in the shortest form that reads back the same.
    public mutating func double(_ value: Double) {
        field(binaryLength: 8) { $0.append(contentsOf: value.postgresText.utf8) } binary: {
            Self.appendBigEndian(value.bitPattern, to: &$0)
        }
    }

    public mutating func bool(_ value: Bool) {
        field(binaryLength: 1) { $0.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f")) } binary: { $0.append(value ? 1 : 0) }
    }

    /// A uuid.
    public mutating func uuid(_ value: UUID) {
        field(binaryLength: 16) { $0.append(contentsOf: value.lowercasedText.utf8) } binary: { buffer in
            withUnsafeBytes(of: value.uuid) { buffer.append(contentsOf: $0) }
        }
    }

    /// A timestamptz, given in microseconds since 1970-01-01 UTC; nil is SQL NULL.
    public mutating func timestamp(microsecondsSince1970 value: Int64?) {
        guard let value else { return null() }
        field(binaryLength: 8) {
            $0.append(contentsOf: Date(timeIntervalSince1970: Double(value) / 1_000_000).postgresText.utf8)
        } binary: {
            // PostgreSQL counts from 2000-01-01 UTC.
            Self.appendBigEndian(value - 946_684_800_000_000, to: &$0)
        }
    }

    /// A timestamptz, rounded to the microsecond as PostgreSQL keeps it; nil is SQL NULL.
    public mutating func timestamp(_ value: Date?) {
        timestamp(microsecondsSince1970: value.map(Timestamp.microseconds))
    }

    /// A bytea, in text in hex form.
    public mutating func bytea(_ value: [UInt8]) {
        field(binaryLength: value.count) { buffer in
            // `\x` with its backslash escaped for COPY.
            buffer.append(contentsOf: [0x5C, 0x5C, UInt8(ascii: "x")])
            ByteaHex.appendDigits(of: value, to: &buffer)
        } binary: { $0.append(contentsOf: value) }
    }

    /// One field of a fixed kind, written in the row's format.
    private mutating func field(binaryLength: Int, text: (inout [UInt8]) -> Void, binary: (inout [UInt8]) -> Void) {
        switch format {
        case .text:
            separate()
            text(&buffer)
        case .binary:
            separate(length: binaryLength)
            binary(&buffer)
        }
    }

    public mutating func null() {
        switch format {
        case .text:
            separate()
            buffer.append(0x5C)
            buffer.append(UInt8(ascii: "N"))
        case .binary:
            separate(length: nil)
        }
    }

    private mutating func noteNUL() {
        problem = "COPY field \(fields) contains a NUL character, which PostgreSQL text cannot hold"
    }

    /// Copies runs of ordinary bytes whole and escapes backslash, tab, newline and carriage return.
    private mutating func escape(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for position in 0..<bytes.count {
            let byte = bytes[position]
            if byte > 0x0D && byte != 0x5C { continue }  // the common case: nothing to escape
            let escape: UInt8
            switch byte {
            case 0x5C: escape = 0x5C
            case 0x09: escape = UInt8(ascii: "t")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            case 0x00:
                if problem == nil { noteNUL() }
                continue
            default: continue
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            buffer.append(0x5C)
            buffer.append(escape)
            runStart = position + 1
        }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}
