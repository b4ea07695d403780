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
        pending.buffer.reserve(more: Self.flushThreshold + (1 << 16))
        if format == .binary {
            // The signature, no flags, no header extension.
            let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)
            header.withUnsafeBufferPointer { pending.buffer.append($0) }
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
        // One access to the pending rows for the whole row: each access to a class's stored property is checked for
        // exclusivity at run time.
        try pending.row(build)
        rowCount += 1
        if pending.buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Sends whole rows rendered ahead, `rows` of them in `range` of `rendered`, after the rows written before.
    public func send(_ rendered: RenderedRows, in range: Range<Int>, rows: Int) throws {
        guard !isFinished else { throw PostgresError(.copy, "the COPY has ended; write rows inside copyFrom") }
        precondition(pending.format == .binary, "rows rendered in binary sent in a text COPY")
        try flush()
        // In pieces of the size the writer sends, so that the connection's buffer stays that small.
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + Self.flushThreshold, range.upperBound)
            try rendered.withBytes(in: start..<end) { try connection.sendCopyData($0.assumingMemoryBound(to: UInt8.self)) }
            start = end
        }
        rowCount += rows
    }

    /// Sends what is left, with the binary format's end marker.
    func finish() throws {
        if pending.format == .binary { pending.buffer.append(bigEndian: -1 as Int16) }
        try flush()
    }

    func flush() throws {
        guard !pending.buffer.isEmpty else { return }
        try pending.buffer.withUnsafeBufferPointer { try connection.sendCopyData($0) }
        pending.buffer.removeAll()
    }
}
