internal import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd, owning its `MHD_Daemon`.
///
/// One polling thread (libmicrohttpd's) reads requests and writes answers; it never runs a handler. When a
/// request's body has arrived in full, its connection is suspended and the request goes to a pool of
/// `workerThreads` threads the server owns, so a handler may block (on PostgreSQL, say) without stalling other
/// connections, and a slow client costs a connection, never a worker. libmicrohttpd's own thread pool would run
/// handlers on its polling threads, where one blocking handler stalls every connection on that thread;
/// thread-per-connection would run as many handlers at once as there are clients.
///
/// Bodies are limited: a declared `Content-Length` over the limit is answered 413 before any of the body is read;
/// a chunked body that passes it is dropped from there on and answered 413 when it ends; a gzip body is inflated
/// no further than the limit. A client that falls silent in its headers or body is answered 408 and closed after
/// `connectionTimeout`, one that trickles them, or its request line, once `requestTimeout` has passed; a silent
/// connection with no request under way, or one inside its request line, is closed. `stop()` stops accepting, lets requests in progress finish, then returns.
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    /// The port listened on: the configured one, or the one the system chose for port 0.
    public let port: Int
    let dispatcher: Dispatcher
    private let daemon: Mutex<Daemon>
    private let stopped = DispatchGroup()

    private enum Daemon {
        case running(handle: MHDHandle, listener: Int32)
        case stopping
        case stopped
    }

    private init(configuration: Configuration, port: Int, dispatcher: Dispatcher, handle: OpaquePointer, listener: Int32) {
        self.configuration = configuration
        self.port = port
        self.dispatcher = dispatcher
        self.daemon = Mutex(.running(handle: MHDHandle(pointer: handle), listener: listener))
        stopped.enter()
    }

    /// A server nobody holds any more stops at once.
    deinit {
        stop(gracePeriod: .zero)
    }

    /// Listens on `configuration.host:port` and serves `router` until `stop()`.
    /// - Throws: `HTTPServerError` naming the address (in use, not this machine's) or the setting at fault.
    public static func start(_ configuration: Configuration, router: Router) throws(HTTPServerError) -> HTTPServer {
        try configuration.validate()
        let certificates = try configuration.tls.map { tls throws(HTTPServerError) in try TLSCertificates(tls) }
        if let fitting = FileDescriptorLimit.raise(toFit: configuration.maximumConnections) {
            configuration.log(
                "the limit of open files (ulimit -n) leaves room for about \(fitting) connections, fewer than the "
                    + "\(configuration.maximumConnections) allowed: connections past it fail as they are accepted")
        }
        let (listener, port) = try ListeningSocket.open(host: configuration.host, port: configuration.port, backlog: 1024)
        let dispatcher = Dispatcher(configuration: configuration, router: router, certificates: certificates)
        let context = Unmanaged.passRetained(dispatcher)
        // poll, not epoll: libmicrohttpd's edge-triggered epoll misses the end of a stream that arrives with the last
        // bytes of a body, and a client that closed its side mid-body would wait for the connection timeout.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        // libmicrohttpd reads these only while it starts. Each connection's session is then given the credentials
        // current when it starts (``Dispatcher/connection(_:context:code:)``), so a reload swaps the certificate for
        // new connections while open ones finish with theirs: libmicrohttpd cannot change a running daemon's
        // certificate, and its certificate callback (MHD_OPTION_HTTPS_CERT_CALLBACK) has no context pointer and
        // would hand out a certificate whose lifetime no connection holds on to.
        let credentials = certificates?.credentials
        let handle = withOptionalCString(credentials?.certificatePEM) { certificate in
            withOptionalCString(credentials?.keyPEM) { key in
                withOptionalCString(configuration.tls?.priorities) { priorities in
                    geoledger_mhd_start_daemon(
                        flags, listener, accessCallback, completedCallback, requestLineCallback, connectionCallback,
                        logCallback, context.toOpaque(),
                        configuration.connectionTimeoutSeconds,
                        UInt32(ConnectionLimits.backstop(configuration.maximumConnections)),
                        configuration.connectionMemoryBytes,
                        UInt32(ConnectionLimits.backstop(configuration.maximumConnectionsPerClient)),
                        certificate, key, priorities)
                }
            }
        }
        guard let handle else {
            close(listener)
            _ = dispatcher.close()
            context.release()
            throw HTTPServerError(.start, "libmicrohttpd could not start serving \(configuration.host):\(port)")
        }
        var started = configuration
        started.port = port
        return HTTPServer(configuration: started, port: port, dispatcher: dispatcher, handle: handle, listener: listener)
    }

    /// Stops accepting connections, waits up to `gracePeriod` for the requests in progress (those whose
    /// headers have arrived) to be answered, answers 503 to any still with a handler (waiting up to one more
    /// second for those answers to go out), closes every connection and returns. A handler still running then
    /// finishes on its worker; its answer is dropped, and its `HTTPRequest.beginCommit()` answers false, so it
    /// undoes its work. A handler that began committing before the cut-off is not answered 503: `stop()` waits
    /// for its own answer, however long past the grace period, and sends it. So a 503 `shutting_down` means the
    /// handler committed nothing. Calling it again, or from several threads, waits for the first call to finish.
    public func stop(gracePeriod: Duration = .seconds(10)) {
        let taken: (handle: MHDHandle, listener: Int32)? = daemon.withLock { daemon in
            guard case .running(let handle, let listener) = daemon else { return nil }
            daemon = .stopping
            return (handle, listener)
        }
        guard let (handle, listener) = taken else {
            stopped.wait()
            return
        }
        dispatcher.beginDraining()
        if MHD_quiesce_daemon(handle.pointer) >= 0 {
            // libmicrohttpd no longer accepts on it; shutting it down refuses new connections now instead of
            // leaving them in the backlog. It is closed once the daemon has stopped using it.
            _ = shutdown(listener, Int32(SHUT_RDWR))
        }
        let deadline = ContinuousClock.now + gracePeriod
        while dispatcher.activeRequests > 0 && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        // Stopping the daemon drops what it has not sent: give the 503s a moment to go out first.
        let (cutOff, committing) = dispatcher.close()
        // A handler that began committing has passed its point of no return: its answer says what it stored.
        while committing.contains(where: \.isCommitting) {
            usleep(2_000)
        }
        let sendingDeadline = ContinuousClock.now + .seconds(1)
        while !dispatcher.areCompleted(cutOff + committing) && ContinuousClock.now < sendingDeadline {
            usleep(2_000)
        }
        MHD_stop_daemon(handle.pointer)
        close(listener)
        // The daemon made its last callback: release the reference it held.
        Unmanaged.passUnretained(dispatcher).release()
        daemon.withLock { $0 = .stopped }
        stopped.leave()
    }

    /// Whether it serves HTTPS.
    public var isTLS: Bool {
        dispatcher.certificates != nil
    }

    /// Blocks until `stop()` has finished.
    public func waitUntilStopped() {
        stopped.wait()
    }
}

private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
