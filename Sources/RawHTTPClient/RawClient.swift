import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on a plain socket to 127.0.0.1, for what URLSession cannot express or would measure
/// with its own overhead: bodies sent slowly or never, bytes that are not HTTP, exact request targets, one keep-alive
/// connection a benchmark's client holds. Every read and write gives up after `timeout`.
public final class RawClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public struct Response: Sendable {
        public let status: Int
        public let headers: HTTPHeaders
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }

        public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
            (self.status, self.headers, self.body) = (status, headers, body)
        }
    }

    /// - Parameter noDelay: send each write at once (`TCP_NODELAY`), as a client timing its requests wants.
    public init(port: Int, timeout: Duration = .seconds(10), noDelay: Bool = false) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if noDelay {
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var time = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: the initialiser throws with every property set, so deinit runs and closes the descriptor.
        // A second close could close a descriptor another thread has opened since, such as the server's own.
        guard connected == 0 else {
            let code = errno
            throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(code)))")
        }
    }

    deinit {
        close(fd)
    }

    /// Whether something accepts connections on the port.
    public static func isListening(port: Int) -> Bool {
        (try? RawClient(port: port, timeout: .seconds(2))) != nil
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Sends a request with `Host`, the `headers` given and, when there is a body, its `Content-Length`; then reads
    /// the response.
    public func request(
        _ method: String, _ target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
        return try readResponse(isHead: method == "HEAD")
    }

    /// Reads one response, skipping `100 Continue`. The body is read by `Content-Length`, by chunks, or to the end.
    public func readResponse(isHead: Bool = false) throws -> Response {
        while true {
            let head = try readHead()
            let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
            let statusParts = lines[0].split(separator: " ")
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
                throw Failure(description: "not a status line: \(lines[0])")
            }
            var headers = HTTPHeaders()
            for line in lines.dropFirst() where !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            }
            if status / 100 == 1 { continue }
            if isHead || status == 204 || status == 304 { return Response(status: status, headers: headers, body: []) }
            if let length = headers["Content-Length"].flatMap({ Int($0) }) {
                return Response(status: status, headers: headers, body: try readExactly(length))
            }
            if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
                var body: [UInt8] = []
                while true {
                    let sizeLine = try readLine()
                    guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                        throw Failure(description: "bad chunk size \(sizeLine)")
                    }
                    if size == 0 {
                        _ = try readLine()
                        return Response(status: status, headers: headers, body: body)
                    }
                    body += try readExactly(size)
                    _ = try readLine()
                }
            }
            var body: [UInt8] = []
            while let more = try receive() { body += more }
            return Response(status: status, headers: headers, body: body)
        }
    }

    /// Closes the sending side, as a client does that has said all it will: the server reads the end of the stream.
    public func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Sends `pieces` one at a time, one every 100 ms (never silent long enough for a connection timeout of a
    /// second or more), until the server has something to say: its answer is then read before another piece could
    /// meet a closed connection. `sent` runs after each piece, with its index. True when the server spoke before all
    /// were sent.
    public func trickle(_ pieces: [String], sent: (Int) throws -> Void = { _ in }) throws -> Bool {
        for (index, piece) in pieces.enumerated() {
            if isReadable(within: .zero) { return true }
            try send(piece)
            try sent(index)
            usleep(100_000)
        }
        return false
    }

    /// Whether bytes (or the end of the stream) wait to be read, or arrive within `limit`.
    public func isReadable(within limit: Duration) -> Bool {
        if !buffer.isEmpty { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// Waits for the server to close the connection, reading and dropping what it sends. True when it closed (or
    /// reset) within `limit`.
    public func closesWithin(_ limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            do {
                guard try receive() != nil else { return true }
            } catch {
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return true
            }
        }
        return false
    }

    private func readHead() throws -> String {
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head
            }
            guard let more = try receive() else { throw Failure(description: "the connection closed before a response") }
            buffer += more
        }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<index], as: UTF8.self).trimmingCharacters(in: ["\r"])
                buffer.removeFirst(index + 1)
                return line
            }
            guard let more = try receive() else { throw Failure(description: "the connection closed in a chunk") }
            buffer += more
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard let more = try receive() else { throw Failure(description: "the connection closed in the body") }
            buffer += more
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// The next bytes, nil at the end of the stream.
    private func receive() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return nil }
        guard count > 0 else { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
        return Array(chunk[..<count])
    }
}
