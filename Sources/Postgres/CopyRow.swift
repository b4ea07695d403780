import CivilCalendar
import Foundation

/// Fields of a COPY row: written in place into the writer's buffer inside `CopyWriter.row`, or rendered ahead
/// (``init(format:)``) and added to a row of the same format later with ``append(_:)``.
public struct CopyRow: Sendable, Equatable {
    public let format: CopyFormat
    /// The rendered fields; in the writer's row, every row not sent yet.
    var buffer: [UInt8]
    /// Fields in the current row so far.
    var fields = 0
    /// Why the fields cannot be sent (a NUL character, which PostgreSQL text cannot hold); the writer throws it.
    public private(set) var problem: String?

    /// Fields to render ahead of their row.
    public init(format: CopyFormat = .text) {
        self.format = format
        buffer = []
    }

    /// How many bytes the fields take so far. In binary, a field's value is its bytes as given, after its 4-byte
    /// length: the last `n` bytes once a value of `n` bytes is added. (In text, values are escaped.)
    public var byteCount: Int { buffer.count }

    /// The rendered bytes in `range` (of ``byteCount``s), read in place.
    public func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Makes room for `bytes` more bytes of fields, so that rendering a large row ahead does not grow its buffer
    /// again and again.
    public mutating func reserveCapacity(_ bytes: Int) {
        buffer.reserveCapacity(buffer.count + bytes)
    }

    /// Inside the writer: appends one row built by `build`, whole or not at all.
    /// - Throws: what `build` throws, or ``PostgresError`` when a field cannot be sent.
    mutating func row(_ build: (inout CopyRow) throws -> Void) throws {
        let start = buffer.count
        fields = 0
        problem = nil
        // In binary, the row starts with its field count, set at the end.
        if format == .binary {
            buffer.append(0)
            buffer.append(0)
        }
        do {
            try build(&self)
            if let problem { throw PostgresError(.encoding, problem) }
        } catch {
            buffer.removeSubrange(start...)
            throw error
        }
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

    /// Byte by byte: appending the value's bytes as a buffer goes through `Array`'s general path for sequences, which
    /// took more instructions than the whole rest of most fields; and in appends written out, not in a loop over the
    /// shifts, which cost more than the appends.
    private static func appendBigEndian(_ value: Int32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value))
    }

    private static func appendBigEndian(_ value: Int64, to buffer: inout [UInt8]) {
        appendBigEndian(Int32(truncatingIfNeeded: value >> 32), to: &buffer)
        appendBigEndian(Int32(truncatingIfNeeded: value), to: &buffer)
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
        guard let value else { return null() }
        // Its UTF-8 read in place: through a copy of the string, each field counted a reference to it and gave it back.
        bytes(value.utf8)
    }

    /// UTF-8 text given as bytes, escaped in text.
    public mutating func bytes(_ value: some Collection<UInt8>) {
        if value.withContiguousStorageIfAvailable({ textBytes($0) }) == nil {
            Array(value).withUnsafeBufferPointer { textBytes($0) }
        }
    }

    /// UTF-8 text given as `Data`, escaped in text: read in place, without `Data`'s generic collection path.
    public mutating func bytes(_ value: Data) {
        value.withUnsafeBytes { textBytes($0.bindMemory(to: UInt8.self)) }
    }

    private mutating func textBytes(_ value: UnsafeBufferPointer<UInt8>) {
        switch format {
        case .text:
            separate()
            escape(value)
        case .binary:
            separate(length: value.count)
            if problem == nil, let base = value.baseAddress, memchr(base, 0, value.count) != nil { noteNUL() }
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
            Self.appendBigEndian(Int64(bitPattern: value.bitPattern), to: &$0)
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
    public mutating func bytea(_ value: UnsafeRawBufferPointer) {
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
