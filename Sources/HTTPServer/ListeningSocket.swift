#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the listening socket before libmicrohttpd starts, so that a failure says which address and why
/// (libmicrohttpd only reports that it could not start), and so that port 0 can be read back.
enum ListeningSocket {
    /// A non-blocking socket listening on `host:port`, and the port it got. The caller owns the descriptor.
    static func open(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (descriptor: Int32, port: Int) {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var storage = sockaddr_storage()
        let length: socklen_t
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                sin.pointee.sin_addr = v4
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                sin6.pointee.sin6_addr = v6
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            throw HTTPServerError(
                .invalidConfiguration, "cannot listen on \(address): \(host) is not an IPv4 or IPv6 address")
        }

        let family = Int32(storage.ss_family)
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw failure(address, "socket", errno) }
        var yes: Int32 = 1
        // Lets a restarted server listen again while old connections linger in TIME_WAIT; a port with a
        // live listener still fails with EADDRINUSE.
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw failure(address, "bind", code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw failure(address, "listen", code)
        }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw failure(address, "fcntl", code)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw failure(address, "getsockname", code)
        }
        return (fd, socketAddressPort(&actual))
    }

    private static func failure(_ address: String, _ call: String, _ code: Int32) -> HTTPServerError {
        switch code {
        case EADDRINUSE:
            return HTTPServerError(.addressInUse, "cannot listen on \(address): the address is already in use")
        case EADDRNOTAVAIL:
            return HTTPServerError(.listen, "cannot listen on \(address): the address is not one of this machine's")
        case EACCES:
            return HTTPServerError(
                .listen, "cannot listen on \(address): permission denied (ports below 1024 need privileges)")
        default:
            return HTTPServerError(
                .listen, "cannot listen on \(address): \(call) failed: \(String(cString: strerror(code)))")
        }
    }
}

/// The port of an IPv4 or IPv6 socket address.
func socketAddressPort(_ storage: UnsafePointer<sockaddr_storage>) -> Int {
    UnsafeRawPointer(storage).withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        socketAddressText(address).port
    }
}

/// The IP address as text and the port of an IPv4 or IPv6 socket address; `("", 0)` for other families.
func socketAddressText(_ address: UnsafePointer<sockaddr>) -> (host: String, port: Int) {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        return UnsafeRawPointer(address).withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
            var addr = sin.pointee.sin_addr
            inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
            return (string(text), Int(UInt16(bigEndian: sin.pointee.sin_port)))
        }
    case AF_INET6:
        return UnsafeRawPointer(address).withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
            var addr = sin6.pointee.sin6_addr
            inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
            return (string(text), Int(UInt16(bigEndian: sin6.pointee.sin6_port)))
        }
    default:
        return ("", 0)
    }
}
