import Foundation
import LocationEvents

/// Reads submissions one by one from a byte stream holding either NDJSON (one JSON object per line, blank
/// lines skipped) or a single JSON array of objects, without holding more than one chunk and one item in memory.
public struct SubmissionReader: Sendable {
    /// One item as read: its 1-based line number (of its first byte) and its bytes.
    public struct RawItem: Sendable {
        public let line: Int
        public let bytes: Data

        public var parsed: IngestItem { IngestItem(parsing: bytes) }
    }

    public enum Format: Sendable { case undecided, lines, array, arrayEnded }

    private enum Source: Sendable {
        case file(Int32)
        case memory(Data)
    }

    private let source: Source
    private var memoryOffset = 0
    private var buffer: [UInt8] = []
    private var start = 0
    private var endOfInput = false
    /// Why reading stopped early, when it was not the end of the input (`errno` text).
    public private(set) var readError: String?
    private var line = 1
    public private(set) var format = Format.undecided
    /// Bytes read from the input so far.
    private var bytesRead = 0
    /// When set, a read of a file descriptor waits for input or for the stop; stopped, reading ends with an error.
    var stop: ReadStop?

    /// Bytes of the input taken up by the items returned so far, for progress.
    public var bytesConsumed: Int { bytesRead - (buffer.count - start) }

    /// - Parameter fileDescriptor: read with `read(2)` in 1 MiB chunks.
    public init(fileDescriptor: Int32) {
        source = .file(fileDescriptor)
    }

    public init(data: Data) {
        source = .memory(data)
    }

    /// The next item, nil at the end. Structural errors (an unterminated array) come back as a malformed item.
    public mutating func next() -> RawItem? {
        if format == .undecided {
            guard let first = skipWhitespace() else { return nil }
            format = first == UInt8(ascii: "[") ? .array : .lines
            if format == .array { start += 1 }
        }
        switch format {
        case .lines: return nextLine()
        case .array: return nextElement()
        case .undecided, .arrayEnded: return nil
        }
    }

    private mutating func nextLine() -> RawItem? {
        while true {
            guard skipWhitespace() != nil else { return nil }
            let itemLine = line
            var index = start
            while true {
                if index == buffer.count {
                    let consumed = start
                    if !fill() { break }
                    index -= consumed
                    continue
                }
                if buffer[index] == UInt8(ascii: "\n") { break }
                index += 1
            }
            let bytes = Data(buffer[start..<index])
            start = min(index + 1, buffer.count)
            if index < buffer.count { line += 1 }
            return RawItem(line: itemLine, bytes: bytes)
        }
    }

    /// The next element of the top-level array: scans to the comma or bracket at depth zero, outside strings.
    private mutating func nextElement() -> RawItem? {
        guard var first = skipWhitespace() else { return unclosedArray() }
        if first == UInt8(ascii: ",") {
            start += 1
            guard let next = skipWhitespace() else { return unclosedArray() }
            first = next
        }
        if first == UInt8(ascii: "]") {
            format = .arrayEnded
            start += 1
            // Anything but white space after the array would otherwise be dropped without a word.
            guard skipWhitespace() != nil else { return nil }
            let trailing = RawItem(line: line, bytes: Data("content after the closing ] of the JSON array".utf8))
            start = buffer.count
            endOfInput = true
            return trailing
        }
        let itemLine = line
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while true {
            if index == buffer.count {
                let consumed = start
                guard fill() else {
                    // A truncated element is malformed by itself; after a complete one, the next call reports
                    // the missing `]`.
                    if depth > 0 || inString { format = .arrayEnded }
                    let bytes = Data(buffer[start..<index])
                    start = index
                    return RawItem(line: itemLine, bytes: bytes)
                }
                index -= consumed
                continue
            }
            let byte = buffer[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                if depth == 0 { break }
                depth -= 1
            } else if byte == UInt8(ascii: ","), depth == 0 {
                break
            }
            index += 1
        }
        let bytes = Data(buffer[start..<index])
        start = index
        return RawItem(line: itemLine, bytes: bytes)
    }

    /// The input ended inside the top-level array: one malformed item says so.
    private mutating func unclosedArray() -> RawItem {
        format = .arrayEnded
        return RawItem(line: line, bytes: Data("the JSON array is not closed".utf8))
    }

    /// Skips spaces and newlines (counting lines); returns the next byte without consuming it, nil at the end.
    private mutating func skipWhitespace() -> UInt8? {
        while true {
            while start < buffer.count {
                let byte = buffer[start]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
                if byte == 0x0A { line += 1 }
                start += 1
            }
            guard fill() else { return nil }
        }
    }

    /// Appends a chunk to the buffer, first dropping the `start` bytes already consumed (so `start` becomes 0 and
    /// indices into the buffer move down by its old value). Returns false at the end of input, leaving the buffer
    /// and `start` as they were, so that callers' indices stay valid.
    private mutating func fill() -> Bool {
        guard !endOfInput else { return false }
        let chunkSize = 1 << 20
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        let count: Int
        switch source {
        case .file(let descriptor):
            var read: Int
            repeat {
                read = chunk.withUnsafeMutableBytes { ReadStop.read(descriptor, into: $0, unless: stop) }
            } while read < 0 && errno == EINTR
            if read < 0 { readError = String(cString: strerror(errno)) }
            count = read
        case .memory(let data):
            count = min(chunkSize, data.count - memoryOffset)
            let from = data.startIndex + memoryOffset
            chunk.replaceSubrange(0..<count, with: data[from..<(from + count)])
            memoryOffset += count
        }
        guard count > 0 else {
            endOfInput = true
            return false
        }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: chunk[0..<count])
        bytesRead += count
        return true
    }
}
