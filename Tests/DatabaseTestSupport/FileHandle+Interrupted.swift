import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading a child process's output in tests. Foundation's `readDataToEndOfFile()` and `availableData` stop the whole
/// test process when a read is interrupted by a signal (`EINTR`), as one is now and then when another test's child
/// process ends meanwhile; these read again instead.
extension FileHandle {
    /// Everything until end of file.
    public func readUntilEnd() -> Data {
        var data = Data()
        while let chunk = readOnce(), !chunk.isEmpty { data.append(chunk) }
        return data
    }

    /// What one read gives: at least one byte, waiting for it, unless at end of file (none).
    public func readAvailable() -> Data {
        readOnce() ?? Data()
    }

    /// One read, made again while a signal interrupts it; nil when it fails otherwise.
    private func readOnce() -> Data? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return nil }
        }
    }
}
