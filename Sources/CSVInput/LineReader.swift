#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor line by line in large blocks: few system calls, and memory bounded by the longest line
/// allowed, whatever the input (`/dev/zero` has no line end at all).
public struct LineReader {
    private let descriptor: Int32
    /// What a failure calls the descriptor.
    private let source: String
    private let maximumLength: Int
    /// What a line should be, for the message about one too long.
    private let expected: String
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    /// Lines returned so far: the number of the last one.
    public private(set) var lineNumber = 0
    private static let blockSize = 1 << 16

    /// - Parameters:
    ///   - maximumLength: the longest line, in bytes without its newline, before ``nextLine()`` throws.
    ///   - expected: what a line should be, for the message about one too long (`"lat,lon"`).
    ///   - source: what a failure calls the descriptor.
    public init(descriptor: Int32 = STDIN_FILENO, source: String = "standard input", maximumLength: Int, expected: String) {
        self.descriptor = descriptor
        self.source = source
        self.maximumLength = maximumLength
        self.expected = expected
    }

    /// The next line without its newline (LF), or nil at the end of the input.
    /// - Throws: ``InputError`` for a line longer than the maximum, or when reading fails.
    public mutating func nextLine() throws -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                return try take(upTo: newline, skipping: 1)
            }
            // No line end within the longest line allowed: no need to read on.
            if buffer.count - position > maximumLength { _ = try take(upTo: buffer.count, skipping: 0) }
            if atEnd {
                guard position < buffer.count else { return nil }
                return try take(upTo: buffer.count, skipping: 0)
            }
            try readBlock()
        }
    }

    private mutating func take(upTo end: Int, skipping separator: Int) throws -> ArraySlice<UInt8> {
        lineNumber += 1
        guard end - position <= maximumLength else {
            throw InputError(description: "line \(lineNumber) is longer than \(maximumLength) bytes: expected \(expected)")
        }
        let line = buffer[position..<end]
        position = end + separator
        return line
    }

    /// Keeps the unfinished line, then reads another block after it.
    private mutating func readBlock() throws {
        buffer.removeSubrange(0..<position)
        position = 0
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: LineReader.blockSize))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBufferPointer { pointer in
                read(descriptor, pointer.baseAddress! + oldCount, LineReader.blockSize)
            }
        } while count < 0 && errno == EINTR
        let failure = count < 0 ? errno : 0
        buffer.removeSubrange((oldCount + max(count, 0))...)
        guard failure == 0 else { throw InputError(description: "cannot read \(source): \(String(cString: strerror(failure)))") }
        if count == 0 { atEnd = true }
    }
}

/// Input that cannot be read as asked: where, and why.
public struct InputError: Error, CustomStringConvertible {
    public let description: String
}
