import Foundation

extension HTTPServer {
    /// The server's settings, built once by the application and handed in.
    public struct Configuration: Sendable {
        /// The IP address to listen on, e.g. `127.0.0.1`, `0.0.0.0` or `::1`.
        public var host: String
        /// The TCP port; 0 lets the system choose (read it back from `HTTPServer.port`).
        public var port: Int
        /// Threads that run handlers. Handlers block (on PostgreSQL, mostly), so twice the cores keeps
        /// the processors busy while some wait.
        public var workerThreads: Int
        /// The largest request body, as sent and after gzip inflation: larger ones are answered 413.
        public var maximumBodyBytes: Int
        /// The largest request head (request line and headers): a larger one is answered 431 (414 when the target
        /// alone is larger). A connection gets twice this for the head, its read buffer and the answer's head; a
        /// head that does not fit in that gets libmicrohttpd's own answer (431 or 414, an HTML page).
        public var maximumHeaderBytes: Int
        /// Connections open at once. One past it is answered 503 `too_many_connections` as soon as it is accepted
        /// (over TLS: closed without an answer) and closed.
        public var maximumConnections: Int
        /// Connections open at once from one client address; one past it is answered 429
        /// `too_many_connections_from_client` (over TLS: closed without an answer) and closed. 0: no limit but
        /// `maximumConnections`.
        public var maximumConnectionsPerClient: Int = 0
        /// HTTPS instead of plain HTTP, when set.
        public var tls: HTTPServer.TLS?
        /// How long a connection may stay silent (no byte received or sent) before it is closed,
        /// in whole seconds (libmicrohttpd's unit); a request whose body was arriving is answered 408 first.
        /// A request being handled is not silent.
        public var connectionTimeout: Duration
        /// How long a client may take to send one request's headers, and its body; past it the request is answered
        /// 408 and the connection closed. Together with `connectionTimeout` this bounds how long a slow client holds its
        /// connection.
        public var requestTimeout: Duration
        /// Response bodies smaller than this are sent as they are.
        public var compressionThreshold: Int
        /// Where the server reports what clients do not see: handler errors (with the request id) and
        /// libmicrohttpd's own messages.
        public var log: @Sendable (String) -> Void
        /// Called once for every answer handed to libmicrohttpd, routed or not (404, 413 before the body, 503 while
        /// stopping), or written by the server itself (408, 400 for a request cut short), on the server's polling
        /// thread or the one that watches slow request heads: keep it short (a log line, a counter).
        public var completed: @Sendable (CompletedRequest) -> Void = { _ in }

        public init(
            host: String = "127.0.0.1", port: Int = 8080, workerThreads: Int = Configuration.defaultWorkerThreads,
            maximumBodyBytes: Int = 16 << 20, maximumHeaderBytes: Int = 64 << 10, maximumConnections: Int = 1000,
            connectionTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(60),
            compressionThreshold: Int = 1024, log: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.host = host
            self.port = port
            self.workerThreads = workerThreads
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumConnections = maximumConnections
            self.connectionTimeout = connectionTimeout
            self.requestTimeout = requestTimeout
            self.compressionThreshold = compressionThreshold
            self.log = log
        }

        /// Twice the processors this process may use, and at least 4.
        public static var defaultWorkerThreads: Int {
            max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
        }

        /// The address as people write it: `127.0.0.1:8080`, `[::1]:8080`.
        public var address: String {
            host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }

        func validate() throws(HTTPServerError) {
            func check(_ condition: Bool, _ message: String) throws(HTTPServerError) {
                if !condition { throw HTTPServerError(.invalidConfiguration, message) }
            }
            try check((0...65535).contains(port), "port \(port) is not between 0 and 65535")
            try check((1...1024).contains(workerThreads), "workerThreads \(workerThreads) is not between 1 and 1024")
            try check(
                (1...(1 << 30)).contains(maximumBodyBytes),
                "maximumBodyBytes \(maximumBodyBytes) is not between 1 and 1 GiB")
            try check(
                (4096...(16 << 20)).contains(maximumHeaderBytes),
                "maximumHeaderBytes \(maximumHeaderBytes) is not between 4 KiB and 16 MiB")
            try check(
                (1...100_000).contains(maximumConnections),
                "maximumConnections \(maximumConnections) is not between 1 and 100000")
            try check(
                (0...maximumConnections).contains(maximumConnectionsPerClient),
                "maximumConnectionsPerClient \(maximumConnectionsPerClient) is not between 0 and maximumConnections (\(maximumConnections))")
            try check(connectionTimeout >= .seconds(1), "connectionTimeout must be at least 1 second")
            try check(requestTimeout > .zero, "requestTimeout must be positive")
            try check(compressionThreshold >= 0, "compressionThreshold must not be negative")
        }

        /// The memory libmicrohttpd gives each connection: room for a head at the limit, to be answered by the server.
        var connectionMemoryBytes: Int {
            2 * maximumHeaderBytes
        }

        /// libmicrohttpd counts the connection timeout in whole seconds.
        var connectionTimeoutSeconds: UInt32 {
            let (seconds, attoseconds) = connectionTimeout.components
            return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
        }
    }
}
