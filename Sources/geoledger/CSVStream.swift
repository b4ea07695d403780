import Foundation

#if canImport(Glibc)
import Glibc
#endif

// Streaming line input and buffered output for the CSV commands: constant memory, few system calls.

/// Writes all of `bytes` to a file descriptor, retrying short writes and interruptions.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

struct LineReader {
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private static let blockSize = 1 << 16

    mutating func nextLine() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[position..<newline]
                position = newline + 1
                return line
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                let line = buffer[position...]
                position = buffer.count
                return line
            }
            // Keep the unfinished line, then read another block after it.
            buffer.removeSubrange(0..<position)
            position = 0
            let oldCount = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: LineReader.blockSize))
            var count = 0
            repeat {
                count = buffer.withUnsafeMutableBufferPointer { pointer in
                    read(0, pointer.baseAddress! + oldCount, LineReader.blockSize)
                }
            } while count < 0 && errno == EINTR
            let received = max(count, 0)
            buffer.removeSubrange((oldCount + received)...)
            if received == 0 { atEnd = true }
        }
    }
}

/// Collects output and writes it to standard output in large blocks.
struct BufferedOutput {
    private var buffer: [UInt8] = []
    private static let flushSize = 1 << 16

    init() { buffer.reserveCapacity(BufferedOutput.flushSize + 256) }

    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        flushIfFull()
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer.append(contentsOf: bytes)
        flushIfFull()
    }

    mutating func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    private mutating func flushIfFull() {
        if buffer.count >= BufferedOutput.flushSize { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }
}
