import Foundation
import LocationEvents

/// Reads submissions one by one from a byte stream holding either NDJSON (one JSON object per line, blank
/// lines skipped) or a single JSON array of objects, scanning each byte once.
///
/// It never holds more than one read chunk and one item: an item longer than ``maximumItemBytes`` is read past
/// without being kept (only its first bytes are, for the rejects) and answered `too_large`. Broken structure around
/// the items (a stray `}` in the array, a missing `,`, an array never closed, content after it, a byte order mark
/// anywhere but at the very start) comes back as one item naming what and where; inside a JSON array, reading stops
/// there, as what follows has no reliable meaning.
public struct SubmissionReader: Sendable {
    /// The largest item read by default: far above any valid submission (a few kilobytes at most), far below what
    /// would let a batch of items take much memory.
    public static let defaultMaximumItemBytes = 64 << 10

    /// One item as read: its 1-based line number (of its first byte) and its bytes.
    public struct RawItem: Sendable {
        public let line: Int
        /// The item's bytes; of an item refused while reading (too large, or broken structure), at most its first
        /// ``SubmissionReader/keptBytes`` bytes.
        public let bytes: Data
        /// Why the item was refused while reading, before any parsing.
        public let problem: FieldError?

        public var parsed: IngestItem { problem.map(IngestItem.malformed) ?? .bytes(bytes) }
    }

    public enum Format: Sendable { case undecided, lines, array, arrayEnded }

    private enum Source: Sendable {
        case file(Int32)
        case memory(Data)
    }

    /// The bytes of a refused item kept for the rejects.
    public static let keptBytes = 512
    static let chunkSize = 1 << 20

    public let maximumItemBytes: Int
    private let source: Source
    private var memoryOffset = 0
    /// Read bytes not yet consumed start at `start`; those before it are dropped at the next read. Never changed in
    /// place: each read makes a new one, so that the items, which share its bytes rather than copying them, keep
    /// theirs. Its indices are offsets from its `startIndex`.
    private var buffer = Data()
    private var start = 0
    private var endOfInput = false
    /// Why reading stopped early, when it was not the end of the input (`errno` text).
    public private(set) var readError: String?
    private var line = 1
    public private(set) var format = Format.undecided
    /// The JSON array's structure broke (never closed, a stray or missing delimiter, content after it): the item
    /// just read says what and where, and is the last.
    public private(set) var isArrayBroken = false
    /// In an array: an element was read, so a `,` or the closing `]` comes next.
    private var afterElement = false
    private var lastElementLine = 0
    /// Bytes read from the input so far.
    private var bytesRead = 0
    /// When set, a read of a file descriptor waits for input or for the stop; stopped, reading ends with an error.
    var stop: ReadStop?

    /// Bytes of the input taken up by the items returned so far, for progress.
    public var bytesConsumed: Int { bytesRead - (buffer.count - start) }

    /// - Parameters:
    ///   - fileDescriptor: read with `read(2)` in 1 MiB chunks.
    ///   - maximumItemBytes: larger items are answered `too_large` without being held in memory.
    public init(fileDescriptor: Int32, maximumItemBytes: Int = SubmissionReader.defaultMaximumItemBytes) {
        source = .file(fileDescriptor)
        self.maximumItemBytes = max(1, maximumItemBytes)
    }

    public init(data: Data, maximumItemBytes: Int = SubmissionReader.defaultMaximumItemBytes) {
        source = .memory(data)
        self.maximumItemBytes = max(1, maximumItemBytes)
    }

    /// The next item, nil at the end.
    public mutating func next() -> RawItem? {
        if format == .undecided {
            skipByteOrderMark()
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

    // MARK: NDJSON

    private mutating func nextLine() -> RawItem? {
        guard skipWhitespace() != nil else { return nil }
        let itemLine = line
        let startsWithMark = startsWithByteOrderMark()
        var item = ItemSpan(maximum: maximumItemBytes)
        var index = start
        while true {
            if index == buffer.count {
                guard refill(scanningAt: &index, keeping: &item) else { break }
                continue
            }
            let found = withBuffer { bytes in
                memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "\n")), bytes.count - index)
                    .map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress! }
            }
            guard let found else {
                index = buffer.count
                continue
            }
            index = found
            break
        }
        let ended = index < buffer.count
        let raw: RawItem
        if let size = item.oversized(to: index, from: start) {
            raw = tooLarge(item, size: size, at: index, line: itemLine, what: "line \(itemLine)")
        } else if startsWithMark {
            raw = RawItem(line: itemLine, bytes: copy(start..<min(index, start + Self.keptBytes)), problem: invalid(
                "a byte order mark (U+FEFF) starts line \(itemLine): only the very start of the input may have one"))
        } else {
            raw = RawItem(line: itemLine, bytes: shared(start..<index), problem: nil)
        }
        start = ended ? index + 1 : index
        if ended { line += 1 }
        return raw
    }

    // MARK: JSON array

    /// The next element of the top-level array: an object or array to its matching bracket, a string to its closing
    /// quote, anything else to the next delimiter; outside strings.
    private mutating func nextElement() -> RawItem? {
        guard var first = skipWhitespace() else { return unclosedArray() }
        if afterElement {
            switch first {
            case UInt8(ascii: ","):
                start += 1
                guard let next = skipWhitespace() else { return unclosedArray() }
                if next == UInt8(ascii: "]") { return stop("a ',' before the closing ] \(here): JSON allows none") }
                first = next
            case UInt8(ascii: "]"):
                start += 1
                return endOfArray()
            default:
                return stop("expected ',' or ']' after the element on line \(lastElementLine), found \(Self.describe(first)) \(here)")
            }
        } else if first == UInt8(ascii: "]") {
            start += 1
            return endOfArray()
        }
        switch first {
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"):
            return stop("unexpected \(Self.describe(first)) \(here), where an element of the array should begin")
        case 0xEF where startsWithByteOrderMark():
            return stop("a byte order mark (U+FEFF) \(here), where an element of the array should begin: only the very start of the input may have one")
        default:
            break
        }

        let itemLine = line
        var scan = ElementScan(first: first)
        var item = ItemSpan(maximum: maximumItemBytes)
        var index = start
        while true {
            if index == buffer.count {
                guard refill(scanningAt: &index, keeping: &item) else {
                    format = .arrayEnded
                    if let size = item.oversized(to: index, from: start) {
                        isArrayBroken = true
                        return tooLarge(item, size: size, at: index, line: itemLine, what: "the element on line \(itemLine)", unclosed: true)
                    }
                    return stop("the input ends inside the element that starts on line \(itemLine): the JSON array is not closed", line: itemLine)
                }
                continue
            }
            let (end, lines) = withBuffer { scan.advance(over: $0, from: index) }
            line += lines
            index = end
            if scan.isComplete { break }
        }
        afterElement = true
        lastElementLine = itemLine
        defer { start = index }
        if let size = item.oversized(to: index, from: start) {
            return tooLarge(item, size: size, at: index, line: itemLine, what: "the element on line \(itemLine)")
        }
        return RawItem(line: itemLine, bytes: shared(start..<index), problem: nil)
    }

    /// After the closing `]`: nothing but white space may follow.
    private mutating func endOfArray() -> RawItem? {
        format = .arrayEnded
        guard let next = skipWhitespace() else { return nil }
        return stop("content after the closing ] of the JSON array: \(Self.describe(next)) \(here)")
    }

    /// The input ended inside the top-level array.
    private mutating func unclosedArray() -> RawItem {
        stop("the JSON array is not closed: the input ends \(here) without its closing ]")
    }

    /// Where reading is: `at line 3 (byte offset 120)`.
    private var here: String { "at line \(line) (byte offset \(offset(of: start)))" }

    /// Ends the reading of the array with one item saying what broke its structure; the item is on `itemLine`, by
    /// default the current line.
    private mutating func stop(_ message: String, line itemLine: Int? = nil) -> RawItem {
        format = .arrayEnded
        isArrayBroken = true
        let atEnd = endOfInput
        let kept = copy(start..<min(buffer.count, start + 64))
        start = buffer.count
        endOfInput = true
        return RawItem(
            line: itemLine ?? line, bytes: kept, problem: invalid(atEnd ? message : "\(message); the rest of the input is not read"))
    }

    // MARK: Shared

    /// The item from `start` to `index`, of `size` bytes in all, is over the limit.
    private func tooLarge(_ item: ItemSpan, size: Int, at index: Int, line itemLine: Int, what: String, unclosed: Bool = false) -> RawItem {
        let tail = unclosed ? "; the input ends inside it, so the JSON array is not closed" : ""
        let prefix = item.prefix ?? copy(start..<min(index, start + Self.keptBytes))
        return RawItem(line: itemLine, bytes: prefix, problem: FieldError(
            field: "", code: .tooLarge,
            message: "\(what) is \(size) bytes, over the limit of \(maximumItemBytes) bytes per item; it was skipped unread\(tail)"))
    }

    private func invalid(_ message: String) -> FieldError {
        FieldError(field: "", code: .invalidJSON, message: message)
    }

    /// The buffer's bytes in `range`, in a copy of their own: what is kept of a refused item, which should not keep
    /// the whole buffer.
    private func copy(_ range: Range<Int>) -> Data {
        Self.copy(range, of: buffer)
    }

    private static func copy(_ range: Range<Int>, of buffer: Data) -> Data {
        buffer.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// The buffer's bytes in `range`, sharing its storage: an item's bytes, neither copied nor allocated.
    private func shared(_ range: Range<Int>) -> Data {
        buffer[(buffer.startIndex + range.lowerBound)..<(buffer.startIndex + range.upperBound)]
    }

    private func withBuffer<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        buffer.withUnsafeBytes { body($0.bindMemory(to: UInt8.self)) }
    }

    private func byte(at index: Int) -> UInt8 { buffer[buffer.startIndex + index] }

    /// The input offset of a buffer index.
    private func offset(of index: Int) -> Int { bytesRead - buffer.count + index }

    /// A byte as messages show it: `'}'`, or `byte 0xEF` when it is not printable ASCII.
    static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
    }

    /// Whether the unconsumed bytes begin with the UTF-8 byte order mark, reading more when needed.
    private mutating func startsWithByteOrderMark() -> Bool {
        while buffer.count - start < 3, fill() {}
        return buffer.count - start >= 3
            && byte(at: start) == 0xEF && byte(at: start + 1) == 0xBB && byte(at: start + 2) == 0xBF
    }

    /// Many Windows tools begin UTF-8 text with a byte order mark: at the very start, it is skipped.
    private mutating func skipByteOrderMark() {
        if bytesConsumed == 0, startsWithByteOrderMark() { start += 3 }
    }

    /// Skips spaces and newlines (counting lines); returns the next byte without consuming it, nil at the end.
    private mutating func skipWhitespace() -> UInt8? {
        while true {
            let from = start
            let (end, lines) = withBuffer { bytes in
                var index = from
                var lines = 0
                scan: while index < bytes.count {
                    switch bytes[index] {
                    case 0x0A: lines += 1
                    case 0x20, 0x0D, 0x09: break
                    default: break scan
                    }
                    index += 1
                }
                return (index, lines)
            }
            start = end
            line += lines
            if start < buffer.count { return byte(at: start) }
            guard fill() else { return nil }
        }
    }

    /// Reads a chunk onto the end of the buffer, first dropping the `start` bytes already consumed (so `start`
    /// becomes 0 and indices into the buffer move down by its old value). Returns false at the end of input, leaving
    /// the buffer and `start` as they were, so that callers' indices stay valid.
    /// At the end of the buffer while scanning an item: passes what the item keeps of it, then reads the next chunk.
    /// `index` moves down with the buffer's bytes (see ``fill()``). False at the end of the input.
    private mutating func refill(scanningAt index: inout Int, keeping item: inout ItemSpan) -> Bool {
        let buffer = self.buffer
        item.passing(&start, to: index) { Self.copy($0, of: buffer) }
        let consumed = start
        guard fill() else { return false }
        index -= consumed
        return true
    }

    private mutating func fill() -> Bool {
        guard !endOfInput else { return false }
        let kept = buffer.count - start
        var count = 0
        var next: Data?
        switch source {
        case .file(let descriptor):
            // Read straight after the unconsumed bytes, in memory that is not zeroed first. What a short read leaves
            // unused (a pipe gives a few kilobytes at a time) is given back, so that the items sharing the buffer do
            // not hold a mebibyte each.
            let capacity = kept + Self.chunkSize
            guard let memory = malloc(capacity) else {
                readError = String(cString: strerror(ENOMEM))
                count = -1
                break
            }
            withBuffer { bytes in
                if kept > 0 { memory.copyMemory(from: bytes.baseAddress! + start, byteCount: kept) }
            }
            let room = UnsafeMutableRawBufferPointer(start: memory + kept, count: Self.chunkSize)
            repeat {
                count = ReadStop.read(descriptor, into: room, unless: stop)
            } while count < 0 && errno == EINTR
            if count < 0 { readError = String(cString: strerror(errno)) }
            if count > 0 {
                let size = kept + count
                let fitted = size < capacity ? realloc(memory, size) ?? memory : memory
                next = Data(bytesNoCopy: fitted, count: size, deallocator: .free)
            } else {
                free(memory)
            }
        case .memory(let data):
            // Taken from the data as it is, not through a chunk: a chunk of a mebibyte, zeroed for each request body
            // read, cost more than reading the body.
            count = min(Self.chunkSize, data.count - memoryOffset)
            let from = data.startIndex + memoryOffset
            let read = data[from..<(from + count)]
            memoryOffset += count
            if kept == 0 {
                next = read
            } else {
                var joined = copy(start..<buffer.count)
                joined.append(read)
                next = joined
            }
        }
        guard count > 0, let next else {
            endOfInput = true
            return false
        }
        bytesRead += count
        buffer = next
        start = 0
        return true
    }
}
