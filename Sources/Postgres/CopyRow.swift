import CivilCalendar
import Foundation

/// Fields of a COPY row: written in place into the writer's buffer inside `CopyWriter.row`; or whole rows rendered
/// ahead into a buffer of their own (``renderRow(_:)``), shared once rendered (``shared()``) and sent as they are.
public struct CopyRow: Sendable, Equatable {
    public let format: CopyFormat
    /// The rendered fields; in the writer's row, every row not sent yet.
    var buffer = CopyBytes()
    /// Fields in the current row so far.
    var fields = 0
    /// Why the fields cannot be sent (a NUL character, which PostgreSQL text cannot hold); the writer throws it.
    public private(set) var problem: String?

    /// Fields, or rows, to render ahead.
    public init(format: CopyFormat = .text) {
        self.format = format
    }

    /// How many bytes the fields take so far. In binary, a field's value is its bytes as given, after its 4-byte
    /// length: the last `n` bytes once a value of `n` bytes is added. (In text, values are escaped.)
    public var byteCount: Int { buffer.count }

    /// Forgets the fields, keeping the room they took for the fields written next.
    public mutating func removeAll() {
        buffer.removeAll()
        fields = 0
        problem = nil
    }

    /// The fields rendered so far, shared from now on and set in place only by ``RenderedRows/set(_:at:)``.
    public consuming func shared() -> RenderedRows {
        RenderedRows(buffer)
    }

    /// Makes room for `bytes` more bytes of fields, so that rendering a large row ahead does not grow its buffer
    /// again and again.
    public mutating func reserveCapacity(_ bytes: Int) {
        buffer.reserve(more: bytes)
    }

    /// Inside the writer: appends one row built by `build`, whole or not at all.
    /// - Throws: what `build` throws, or ``PostgresError`` when a field cannot be sent.
    mutating func row(_ build: (inout CopyRow) throws -> Void) throws {
        let start = buffer.count
        do {
            try appendRow(build)
            if let problem { throw PostgresError(.encoding, problem) }
        } catch {
            buffer.truncate(to: start)
            throw error
        }
    }

    /// Appends one whole row built by `build`, rendered ahead to be sent later (``shared()``), and answers why it
    /// cannot be sent when it cannot (a NUL character in a text): it is kept either way, for the caller to refuse it.
    public mutating func renderRow(_ build: (inout CopyRow) -> Void) -> String? {
        appendRow(build)
        return problem
    }

    /// Appends one row built by `build`: in binary its field count first, in text a newline after it.
    private mutating func appendRow(_ build: (inout CopyRow) throws -> Void) rethrows {
        let start = buffer.count
        fields = 0
        problem = nil
        // In binary, the row starts with its field count, set at the end.
        if format == .binary {
            buffer.append(0)
            buffer.append(0)
        }
        try build(&self)
        switch format {
        case .text:
            buffer.append(0x0A)
        case .binary:
            buffer.set(UInt8(truncatingIfNeeded: fields >> 8), at: start)
            buffer.set(UInt8(truncatingIfNeeded: fields), at: start + 1)
        }
    }

    /// Starts a field in text: after a tab, unless it is the row's first.
    private mutating func separate() {
        if fields > 0 { buffer.append(0x09) }
        fields += 1
    }

    /// A field in binary, its length and its value written by `write` at once.
    private mutating func binary(_ write: (inout CopyBytes) -> Void) {
        write(&buffer)
        fields += 1
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

    /// UTF-8 text given as a buffer, escaped in text.
    public mutating func bytes(_ value: UnsafeBufferPointer<UInt8>) {
        textBytes(value)
    }

    private mutating func textBytes(_ value: UnsafeBufferPointer<UInt8>) {
        switch format {
        case .text:
            separate()
            escape(value)
        case .binary:
            binary { $0.appendField(value) }
            if problem == nil, let base = value.baseAddress, memchr(base, 0, value.count) != nil { noteNUL() }
        }
    }

    /// An integer: an int8 in binary.
    public mutating func integer(_ value: Int64) {
        switch format {
        case .text: textField(String(value))
        case .binary: binary { $0.appendField(bigEndian: UInt64(bitPattern: value)) }
        }
    }

    /// A float8, in text in the shortest form that reads back the same.
    public mutating func double(_ value: Double) {
        switch format {
        case .text: textField(value.postgresText)
        case .binary: binary { $0.appendField(bigEndian: value.bitPattern) }
        }
    }

    public mutating func bool(_ value: Bool) {
        switch format {
        case .text: textField(value ? "t" : "f")
        case .binary: binary { $0.appendField(value ? 1 : 0) }
        }
    }

    /// A uuid.
    public mutating func uuid(_ value: UUID) {
        switch format {
        case .text: textField(value.lowercasedText)
        case .binary:
            withUnsafeBytes(of: value.uuid) { uuid in binary { $0.appendField(uuid.assumingMemoryBound(to: UInt8.self)) } }
        }
    }

    /// A timestamptz, given in microseconds since 1970-01-01 UTC; nil is SQL NULL.
    public mutating func timestamp(microsecondsSince1970 value: Int64?) {
        guard let value else { return null() }
        switch format {
        case .text: textField(Date(timeIntervalSince1970: Double(value) / 1_000_000).postgresText)
        // PostgreSQL counts from 2000-01-01 UTC.
        case .binary: binary { $0.appendField(bigEndian: UInt64(bitPattern: value - 946_684_800_000_000)) }
        }
    }

    /// A timestamptz, rounded to the microsecond as PostgreSQL keeps it; nil is SQL NULL.
    public mutating func timestamp(_ value: Date?) {
        timestamp(microsecondsSince1970: value.map(Timestamp.microseconds))
    }

    /// A bytea, in text in hex form.
    public mutating func bytea(_ value: UnsafeRawBufferPointer) {
        switch format {
        case .text:
            // `\x` with its backslash escaped for COPY, then the digits.
            var text: [UInt8] = [0x5C, 0x5C, UInt8(ascii: "x")]
            ByteaHex.appendDigits(of: value, to: &text)
            separate()
            text.withUnsafeBufferPointer { buffer.append($0) }
        case .binary: binary { $0.appendField(value.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// A value of a fixed kind in text, which needs no escape.
    private mutating func textField(_ text: String) {
        separate()
        var text = text
        text.withUTF8 { buffer.append($0) }
    }

    public mutating func null() {
        switch format {
        case .text:
            separate()
            buffer.append(0x5C)
            buffer.append(UInt8(ascii: "N"))
        case .binary: binary { $0.append(bigEndian: Int32(-1)) }
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
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            buffer.append(0x5C)
            buffer.append(escape)
            runStart = position + 1
        }
        buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}
