// @preconcurrency for `stdout`, a C global that Swift cannot prove safe: it is set before main and never changes.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

// Every write of a command's output is checked: a failure ends the command with exit 1 and a message, or, when the
// reader of a pipe went away, quietly with status 141. The program ignores SIGPIPE so that such a write fails with
// EPIPE instead of killing the process.

/// Writes all of `bytes` to a file descriptor, retrying short writes and interruptions.
/// - Parameter target: what a failure calls the descriptor.
public func writeAll(_ bytes: [UInt8], to descriptor: Int32, target: String) throws {
    try bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                throw OutputError.writeFailed(target: target, code: written < 0 ? errno : EIO)
            }
        }
    }
}

/// Writes to standard error. Should that fail there is no one left to tell, and the exit status still says it.
public func writeStandardError(_ text: String) {
    try? writeAll(Array(text.utf8), to: STDERR_FILENO, target: "standard error")
}

/// Collects output and writes it to a file descriptor in large blocks: standard output unless told otherwise.
public struct BufferedOutput {
    private let descriptor: Int32
    private let target: String
    private var buffer: [UInt8] = []
    private static let flushSize = 1 << 16

    /// - Parameter target: what a failure calls the descriptor.
    public init(descriptor: Int32 = STDOUT_FILENO, target: String = "standard output") {
        self.descriptor = descriptor
        self.target = target
        buffer.reserveCapacity(BufferedOutput.flushSize + 256)
    }

    public mutating func append(_ text: String) throws {
        try append(text.utf8)
    }

    public mutating func append(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= BufferedOutput.flushSize { try flush() }
    }

    public mutating func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try writeAll(buffer, to: descriptor, target: target)
    }
}

/// Flushes what `print` left in standard output's buffer.
/// - Throws: ``OutputError/writeFailed(target:code:)`` when a write failed, at this flush or at an earlier one (then with the last reason
///   recorded).
public func flushPrintedOutput() throws {
    guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
    throw OutputError.writeFailed(target: "standard output", code: errno == 0 ? EIO : errno)
}
