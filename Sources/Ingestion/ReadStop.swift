import Foundation

/// Lets one thread stop another's reading of a file descriptor, even a read that would wait for more of a pipe that
/// stays open: closing the descriptor would not wake that read, and its number may be reused at once. Each read
/// first waits, with `poll(2)`, for the input or for the stop; once stopped, no read starts.
final class ReadStop: Sendable {
    /// A pipe of its own: ``stop()`` writes to it, and every wait watches it.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw IngestError.input("cannot make a pipe: \(String(cString: strerror(errno)))") }
        // Not inherited by processes started meanwhile.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends a read waiting in ``read(_:into:unless:)`` now, and every later one before it starts.
    func stop() {
        var byte: UInt8 = 0
        while write(wakeWrite, &byte, 1) < 0 && errno == EINTR {}
    }

    /// `read(2)` of `descriptor` into `buffer`, started only once the descriptor has input (or its end, or an error)
    /// and only when `stop` was not stopped: then -1 with `errno` ECANCELED.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, unless stop: ReadStop?) -> Int {
        if let stop {
            var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stop.wakeRead, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&watched, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 { return -1 }
                if watched[1].revents != 0 {
                    errno = ECANCELED
                    return -1
                }
                break
            }
        }
        return Foundation.read(descriptor, buffer.baseAddress, buffer.count)
    }
}
