import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads standard input line by line in large blocks: constant memory, few system calls.
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
