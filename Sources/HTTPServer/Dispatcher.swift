internal import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libmicrohttpd's callbacks reach through their context pointer: reads requests on the polling thread,
/// hands complete ones to the worker pool, and sends the answers. It knows every request from its first
/// callback to its last, so that stopping can wait for them.
final class Dispatcher: Sendable {
    let configuration: HTTPServer.Configuration
    let router: Router
    let workers: WorkerPool
    /// The credentials of a TLS server; nil for plain HTTP.
    let certificates: TLSCertificates?
    let limits: ConnectionLimits
    private let state = Mutex(State())

    private struct State {
        var phase = Phase.running
        /// Requests from their first callback until libmicrohttpd reports them completed.
        var active: [ObjectIdentifier: RequestContext] = [:]
        /// Requests whose headers are arriving: from their request line until their headers are whole, or
        /// libmicrohttpd reports them completed.
        var heads: [ObjectIdentifier: RequestStart] = [:]
        /// Connections between requests: from their start, or the end of their last request, until their next
        /// request line, with when that was, and when the first bytes of that line came, once the watch saw them.
        var betweenRequests: [ObjectIdentifier: Waiting] = [:]
    }

    struct Waiting {
        let connection: ConnectionWatch
        let since: ContinuousClock.Instant
        var firstData: ContinuousClock.Instant? = nil
    }

    enum Phase {
        case running
        /// Not accepting connections; requests on open ones are still answered, with `Connection: close`.
        case draining
        /// No request is handed to a worker any more: each is answered 503.
        case closed
    }

    init(configuration: HTTPServer.Configuration, router: Router, certificates: TLSCertificates? = nil) {
        self.configuration = configuration
        self.router = router
        self.certificates = certificates
        self.limits = ConnectionLimits(
            maximum: configuration.maximumConnections, perClient: configuration.maximumConnectionsPerClient)
        self.workers = WorkerPool(threads: configuration.workerThreads, name: "HTTP worker")
        let watch = Thread { [self] in watchHeads() }
        watch.name = "HTTP head watch"
        watch.start()
    }

    var activeRequests: Int {
        state.withLock { $0.active.count }
    }

    func beginDraining() {
        state.withLock { $0.phase = .draining }
    }

    /// Stops handing requests to workers and answers 503 every request a worker has not answered yet, except
    /// those whose handler has begun committing (``RequestContext/beginCommit()``): their handler answers.
    /// After this no connection is suspended but those, so libmicrohttpd may be stopped once they are answered.
    /// Returns the requests it answered and those left to their committing handlers.
    func close() -> (answered: [RequestContext], committing: [RequestContext]) {
        let active = state.withLock { state in
            state.phase = .closed
            state.heads = [:]
            state.betweenRequests = [:]
            return Array(state.active.values)
        }
        var answered: [RequestContext] = []
        var committing: [RequestContext] = []
        for context in active {
            if context.cutOff(.error(
                .serviceUnavailable, code: "shutting_down",
                message: "the server stopped before request \(context.id) was answered"))
            {
                answered.append(context)
            } else if context.isCommitting {
                committing.append(context)
            }
        }
        workers.shutDown()
        return (answered, committing)
    }

    /// Whether libmicrohttpd is done with every one of `requests` (their answers sent, or their connections gone).
    func areCompleted(_ requests: [RequestContext]) -> Bool {
        state.withLock { state in requests.allSatisfy { state.active[ObjectIdentifier($0)] == nil } }
    }

    // MARK: libmicrohttpd's callbacks, on its polling thread

    /// libmicrohttpd calls this when a request line has arrived, before its headers: what it returns is the
    /// request's slot until the headers are whole, so that a client that stops sending them can be answered.
    func requestLine(_ connection: OpaquePointer, target: UnsafePointer<CChar>) -> UnsafeMutableRawPointer {
        let watched = Self.watch(of: connection)
        let (start, answered) = state.withLock { state in
            let waiting = watched.flatMap { state.betweenRequests.removeValue(forKey: ObjectIdentifier($0)) }
            // A request line that trickled in: the request began with its first bytes, and its request timeout with
            // them.
            let start = requestStart(connection, targetBytes: strlen(target), started: waiting?.firstData ?? .now)
            state.heads[ObjectIdentifier(start)] = start
            guard let watched else { return (start, false) }
            // Answered 408 already, when its request line took too long.
            return (start, waiting == nil && watched.isAnswered)
        }
        let parameters = Self.queryParameterCount(target)
        if answered {
            _ = start.claim()
        } else if parameters > Self.maximumQueryParameters, start.claim() {
            // libmicrohttpd keeps a record of each query parameter in the connection's memory, and once that is full
            // closes the connection without an answer (a few thousand short ones do it): this answer goes first.
            configuration.log("request \(start.id): \(parameters) query parameters; answered 414")
            answerOnSocket(Self.tooManyParameters, record: start.record(of: Self.tooManyParameters), on: start.socket)
            _ = shutdown(start.socket, Int32(SHUT_WR))
        }
        return Unmanaged.passRetained(start).toOpaque()
    }

    /// More query parameters than any route takes by far, and few enough for libmicrohttpd's memory.
    static let maximumQueryParameters = 256

    static let tooManyParameters: HTTPResponse = .error(
        .uriTooLong, code: "too_many_parameters",
        message: "the request target has more than \(maximumQueryParameters) query parameters")

    /// The query parameters in a request target, as libmicrohttpd splits them: the pieces between `&` after `?`.
    static func queryParameterCount(_ target: UnsafePointer<CChar>) -> Int {
        guard let query = strchr(target, Int32(UInt8(ascii: "?"))) else { return 0 }
        var count = 1
        var byte = query + 1
        while byte.pointee != 0 {
            if byte.pointee == CChar(UInt8(ascii: "&")) { count += 1 }
            byte += 1
        }
        return count
    }

    /// A request from its request line, with its connection's socket and client address: read once a connection,
    /// when it starts (``connection(_:context:code:)``), not once a request.
    private func requestStart(
        _ connection: OpaquePointer, targetBytes: Int, started: ContinuousClock.Instant = .now
    ) -> RequestStart {
        let watched = Self.watch(of: connection) ?? ConnectionWatch(connection)
        return RequestStart(
            id: Self.newRequestID(), started: started, targetBytes: targetBytes, remoteAddress: watched.remoteAddress,
            clientCertificate: watched.clientCertificate(connection), socket: watched.socket)
    }

    /// libmicrohttpd calls this when a connection starts and when it is closed (before its socket is).
    func connection(
        _ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        code: MHD_ConnectionNotificationCode
    ) {
        if code == .CONNECTION_NOTIFY_STARTED {
            // A TLS session's credentials are chosen here, before its handshake (libmicrohttpd made the session, with
            // the daemon's own credentials, just before): see ``HTTPServer/reloadCertificates()``.
            let credentials = certificates?.credentials
            if let credentials, !credentials.attach(to: connection) {
                configuration.log("a TLS connection could not be given the current certificate; it is closed")
                _ = shutdown(geoledger_mhd_connection_socket(connection), Int32(SHUT_RDWR))
            }
            let watched = ConnectionWatch(connection, credentials: credentials)
            context.pointee = Unmanaged.passRetained(watched).toOpaque()
            let (refusal, report) = limits.admit(watched.remoteAddress)
            guard let refusal else {
                state.withLock { $0.betweenRequests[ObjectIdentifier(watched)] = Waiting(connection: watched, since: .now) }
                return
            }
            refuse(watched, refusal, report: report)
        } else if let existing = context.pointee {
            context.pointee = nil
            let watched = Unmanaged<ConnectionWatch>.fromOpaque(existing).takeRetainedValue()
            state.withLock { _ = $0.betweenRequests.removeValue(forKey: ObjectIdentifier(watched)) }
            if !watched.isRefused { limits.release(watched.remoteAddress) }
        }
    }

    /// Answers a connection past a limit as soon as it starts (over TLS, before the handshake, it is closed without
    /// an answer) and closes it; any request it sends is dropped (``requestLine(_:target:)``).
    private func refuse(_ watched: ConnectionWatch, _ refusal: ConnectionLimits.Refusal, report: Bool) {
        watched.markAnswered(refused: true)
        let answer = refusal.answer
        if report {
            configuration.log(
                "refusing a connection from \(watched.remoteAddress): \(refusal.message) (refusals are counted in the "
                    + "connection statistics; the next line comes after a minute without one)")
        }
        let record = CompletedRequest.beforeHeaders(
            id: Self.newRequestID(), answer: answer, started: .now, remoteAddress: watched.remoteAddress)
        answerOnSocket(answer, record: record, on: watched.socket, recorded: false)
        _ = shutdown(watched.socket, Int32(SHUT_RDWR))
    }

    private static func watch(of connection: OpaquePointer) -> ConnectionWatch? {
        geoledger_mhd_socket_context(connection).map { Unmanaged<ConnectionWatch>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Answers 408 to each request whose headers, or request line, have taken longer than the request timeout (a
    /// client that trickles them is never silent long enough for the connection timeout), until the server closes.
    private func watchHeads() {
        let interval = min(configuration.requestTimeout / 4, .seconds(1))
        while state.withLock({ $0.phase != .closed }) {
            Thread.sleep(forTimeInterval: interval / .seconds(1))
            let now = ContinuousClock.now
            // Under the lock: libmicrohttpd closes a connection only after `completed`, which takes the lock to
            // drop the request from `heads`, so the socket written here is still this request's.
            state.withLock { state in
                for (key, start) in state.heads where now - start.started > configuration.requestTimeout {
                    state.heads[key] = nil
                    guard start.claim() else { continue }
                    configuration.log("request \(start.id): the headers took longer than the request timeout; answered 408")
                    answerOnSocket(Self.requestTimeout, record: start.record(of: Self.requestTimeout), on: start.socket)
                    // libmicrohttpd reads the end of the stream next and closes the connection.
                    _ = shutdown(start.socket, Int32(SHUT_RDWR))
                }
                for (key, waiting) in state.betweenRequests {
                    // A connection that received nothing since is idle, and left to the connection timeout; one that
                    // did is sending a request line, which began when the watch first saw its data (the last data
                    // received before that look, within one interval of its first byte), and so did its request
                    // timeout: a connection idle for longer may send its next request.
                    let silence = geoledger_socket_last_data_received_ms(waiting.connection.socket)
                    guard silence >= 0, now - .milliseconds(silence) > waiting.since + .milliseconds(50) else { continue }
                    let firstData = waiting.firstData ?? now - .milliseconds(silence)
                    if waiting.firstData == nil { state.betweenRequests[key]?.firstData = firstData }
                    guard now - firstData > configuration.requestTimeout else { continue }
                    state.betweenRequests[key] = nil
                    waiting.connection.markAnswered()
                    let id = Self.newRequestID()
                    configuration.log("request \(id): the request line took longer than the request timeout; answered 408")
                    let record = CompletedRequest.beforeHeaders(
                        id: id, answer: Self.requestTimeout, started: firstData,
                        remoteAddress: waiting.connection.remoteAddress)
                    answerOnSocket(Self.requestTimeout, record: record, on: waiting.connection.socket)
                    _ = shutdown(waiting.connection.socket, Int32(SHUT_RDWR))
                }
            }
        }
    }

    /// libmicrohttpd calls this when a request's headers have arrived (`slot` empty or holding its
    /// ``RequestStart``), for each piece of the body (`uploadSize` > 0), and when the body is complete (`uploadSize`
    /// 0), again after a resume.
    func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let held = slot.pointee.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
        guard let context = held as? RequestContext else {
            let start = held as? RequestStart ?? requestStart(connection, targetBytes: strlen(url))
            state.withLock { _ = $0.heads.removeValue(forKey: ObjectIdentifier(start)) }
            // Answered 408 already: its headers took too long.
            guard start.claim() else { return .NO }
            if let existing = slot.pointee { Unmanaged<AnyObject>.fromOpaque(existing).release() }
            let fields = ParsedHead.RawField.all(of: connection)
            let context = makeContext(connection, url: url, method: method, fields: fields, start: start)
            slot.pointee = Unmanaged.passRetained(context).toOpaque()
            let phase = state.withLock { state in
                state.active[ObjectIdentifier(context)] = context
                return state.phase
            }
            let headBytes = geoledger_mhd_request_head_size(connection)
            let head = RequestHead(
                bytes: headBytes, targetBytes: start.targetBytes, version: version.map { String(cString: $0) } ?? "",
                fault: version.flatMap { version in
                    // A head over the limit is refused for its size: it is not walked.
                    guard headBytes <= configuration.maximumHeaderBytes else { return nil }
                    return ParsedHead.fault(
                        method: method, url: url, version: version, fields: fields, headBytes: headBytes,
                        targetLength: start.targetBytes)
                })
            // The handshake already refuses a client without a verified certificate; this holds should it not.
            if Self.watch(of: connection)?.credentials?.requiresClientCertificate == true && context.clientCertificate == nil {
                var refusal = HTTPResponse.error(
                    .forbidden, code: "client_certificate_required",
                    message: "this server needs a client certificate signed by its client CA")
                refusal.headers.set("Connection", "close")
                return send(refusal, for: context, on: connection)
            }
            if let refusal = refusalBeforeBody(context, head: head, phase: phase) {
                return send(refusal, for: context, on: connection)
            }
            return .YES
        }

        if uploadSize.pointee > 0 {
            // A client that trickles its body is answered 408 once the request timeout has passed, and closed.
            guard ContinuousClock.now - context.started <= configuration.requestTimeout else {
                answerUnfinishedBody(
                    context, with: Self.requestTimeout, on: connection, because: "the body took longer than the request timeout")
                return .NO
            }
            let piece = UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
            context.receive(piece, limit: configuration.maximumBodyBytes)
            uploadSize.pointee = 0
            return .YES
        }

        switch context.complete() {
        case .respond(let response):
            return send(response, for: context, on: connection)
        case .wait:
            return .YES
        case .dispatch:
            // Under the lock, so that `close()` either sees this request dispatched or this sees the server closed.
            let dispatched: [UInt8]? = state.withLock { state in
                guard state.phase != .closed else { return nil }
                let body = context.dispatch(MHDHandle(pointer: connection))
                MHD_suspend_connection(connection)
                return body
            }
            guard let body = dispatched else {
                return send(Self.shuttingDown, for: context, on: connection)
            }
            workers.submit { [self] in
                guard context.isDispatched else { return }
                context.answer(respond(to: context, body: body))
            }
            return .YES
        }
    }

    /// libmicrohttpd is done with a request: answered, failed, timed out or shut down. A request whose headers or body
    /// stopped coming for the connection timeout is answered 408 now, before libmicrohttpd closes its connection, and
    /// one whose client closed its side before the request ended 400 (a client that closed both sides gets nothing).
    func completed(
        _ connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        reason: MHD_RequestTerminationCode
    ) {
        // The connection is between requests again (or about to close).
        if let connection, let watched = Self.watch(of: connection) {
            state.withLock { state in
                if state.phase != .closed && !watched.isAnswered {
                    state.betweenRequests[ObjectIdentifier(watched)] = Waiting(connection: watched, since: .now)
                }
            }
        }
        guard let existing = slot.pointee else { return }
        slot.pointee = nil
        let held = Unmanaged<AnyObject>.fromOpaque(existing).takeRetainedValue()
        let unfinished: (answer: HTTPResponse, reason: String)? = switch reason {
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: (Self.requestTimeout, "stopped coming for the connection timeout")
        case .REQUEST_TERMINATED_CLIENT_ABORT: (Self.incompleteRequest, "ended with the client's side of the connection")
        default: nil
        }
        if let start = held as? RequestStart {
            state.withLock { _ = $0.heads.removeValue(forKey: ObjectIdentifier(start)) }
            if let unfinished, start.claim() {
                configuration.log(
                    "request \(start.id): the headers \(unfinished.reason); answered \(unfinished.answer.status)")
                answerOnSocket(unfinished.answer, record: start.record(of: unfinished.answer), on: start.socket)
            }
            return
        }
        guard let context = held as? RequestContext else { return }
        if let unfinished, let connection {
            answerUnfinishedBody(context, with: unfinished.answer, on: connection, because: "the body \(unfinished.reason)")
        }
        state.withLock { _ = $0.active.removeValue(forKey: ObjectIdentifier(context)) }
    }

    // MARK: Reading and answering

    private func makeContext(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        fields: [ParsedHead.RawField], start: RequestStart
    ) -> RequestContext {
        var headers = HTTPHeaders()
        for field in fields { headers.add(field.name, field.value) }
        var query: [(name: [UInt8], value: [UInt8])] = []
        withUnsafeMutablePointer(to: &query) { pointer in
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, { context, _, key, keySize, value, valueSize in
                let query = context!.assumingMemoryBound(to: [(name: [UInt8], value: [UInt8])].self)
                query.pointee.append((
                    Array(UnsafeRawBufferPointer(start: key, count: keySize)),
                    Array(UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))))
                return .YES
            }, pointer)
        }
        return RequestContext(
            id: start.id, started: start.started, method: HTTPMethod(rawValue: String(cString: method)),
            rawPath: Array(UnsafeRawBufferPointer(start: url, count: strlen(url))), rawQuery: query,
            headers: headers, remoteAddress: start.remoteAddress, clientCertificate: start.clientCertificate)
    }

    /// What the server checks of a request line and headers, besides the headers themselves.
    private struct RequestHead {
        /// The request line and headers.
        var bytes: Int
        var targetBytes: Int
        /// `HTTP/1.1`, `HTTP/1.0`.
        var version: String
        /// Where a NUL byte hides part of it from libmicrohttpd, or a bare CR or a folded header is in it.
        var fault: ParsedHead.Fault?
    }

    /// The answers given before reading the body: a stopped server, a request head over the limit, a head with a NUL
    /// byte libmicrohttpd stopped reading at, a bare CR or a folded header, an HTTP/1.1 request without `Host`, a
    /// declared body over the limit, a body framed or encoded in a way the server does not read.
    private func refusalBeforeBody(_ context: RequestContext, head: RequestHead, phase: Phase) -> HTTPResponse? {
        if phase == .closed { return Self.shuttingDown }
        let limit = configuration.maximumHeaderBytes
        if head.targetBytes > limit || head.bytes > limit {
            var response: HTTPResponse = head.targetBytes > limit
                ? .error(
                    .uriTooLong, code: "uri_too_long",
                    message: "the request target is \(head.targetBytes) bytes; the limit is \(limit) bytes")
                : .error(
                    .requestHeaderFieldsTooLarge, code: "headers_too_large",
                    message: "the request line and headers are \(head.bytes) bytes; the limit is \(limit) bytes")
            response.headers.set("Connection", "close")
            return response
        }
        if let fault = head.fault { return ParsedHead.refusal(fault) }
        if head.version == "HTTP/1.1" && context.headers["Host"] == nil {
            return .error(
                .badRequest, code: "missing_host", message: "an HTTP/1.1 request must have a Host header", field: "Host")
        }
        // libmicrohttpd reads a body as chunked only when Transfer-Encoding is `chunked` with nothing after it (it skips
        // the whitespace before a value, not after), its letters compared byte by byte in either ASCII case, and any
        // other until the connection closes: so is it compared here.
        if let coding = context.headers["Transfer-Encoding"], !coding.equalsIgnoringASCIICase("chunked") {
            var response = HTTPResponse.error(
                .badRequest, code: "unsupported_transfer_encoding",
                message: coding.trimmingASCIISpaces.equalsIgnoringASCIICase("chunked")
                    ? "Transfer-Encoding has whitespace after chunked, which this server cannot read: send chunked alone"
                    : "Transfer-Encoding \(coding) is not supported: send the body with a Content-Length, or chunked",
                field: "Transfer-Encoding")
            response.headers.set("Connection", "close")
            return response
        }
        // libmicrohttpd frames such a body by one of them and ignores the other: a proxy in front may have framed
        // it by the other (request smuggling, RFC 9112 section 6.3).
        let lengths = context.headers.values(for: "Content-Length").map(\.trimmingASCIISpaces)
        if Set(lengths).count > 1 || (!lengths.isEmpty && context.headers.contains("Transfer-Encoding")) {
            var response = HTTPResponse.error(
                .badRequest, code: "ambiguous_length",
                message: Set(lengths).count > 1
                    ? "the request has Content-Length \(lengths.joined(separator: " and ")): send one"
                    : "the request has both Content-Length and Transfer-Encoding: send one",
                field: "Content-Length")
            response.headers.set("Connection", "close")
            return response
        }
        if let declared = context.headers["Content-Length"].flatMap({ UInt64($0.trimmingASCIISpaces) }),
            declared > UInt64(configuration.maximumBodyBytes)
        {
            return .error(
                .contentTooLarge, code: "body_too_large",
                message: "the request body is \(declared) bytes; the limit is \(configuration.maximumBodyBytes) bytes")
        }
        if case .unsupported(let coding) = ContentCoding(context.headers.combined("Content-Encoding")) {
            return .error(
                .unsupportedMediaType, code: "unsupported_content_encoding",
                message: "Content-Encoding \(coding) is not supported: send the body as it is, or gzip",
                field: "Content-Encoding")
        }
        return nil
    }

    /// Runs on a worker: decodes the request, routes it, runs the handler, compresses the answer.
    private func respond(to context: RequestContext, body: [UInt8]) -> HTTPResponse {
        var response: HTTPResponse
        do throws(RequestRefusal) {
            let (request, segments) = try decode(context, body: body)
            response = route(request, segments: segments, context: context)
        } catch {
            response = error.response
        }
        return compressed(response, for: context)
    }

    private func route(_ request: HTTPRequest, segments: [String], context: RequestContext) -> HTTPResponse {
        switch router.match(request.method, segments) {
        case .notFound:
            return .error(.notFound, code: "not_found", message: "no route for \(request.path)")
        case .methodNotAllowed(let allowed):
            var response = HTTPResponse.error(
                .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.path) does not accept \(request.method); it accepts \(allowed.joined(separator: ", "))")
            response.headers.set("Allow", allowed.joined(separator: ", "))
            return response
        case .found(let pattern, let parameters, let handler):
            context.route = pattern
            var routed = HTTPRequest(
                id: request.id, method: request.method, path: request.path, route: pattern, pathParameters: parameters,
                query: request.query, headers: request.headers, body: request.body, remoteAddress: request.remoteAddress,
                clientCertificate: request.clientCertificate)
            routed.context = context
            do {
                return try handler(routed)
            } catch {
                configuration.log("request \(context.id) \(request.method) \(pattern): the handler failed: \(error)")
                return .error(
                    .internalServerError, code: "internal_error",
                    message: "the server failed to answer request \(context.id)")
            }
        }
    }

    private func compressed(_ response: HTTPResponse, for context: RequestContext) -> HTTPResponse {
        guard response.body.count >= max(configuration.compressionThreshold, 1),
            response.body.count <= Int(UInt32.max / 2),
            !response.headers.contains("Content-Encoding"),
            response.status != .noContent, response.status.rawValue != 304
        else { return response }
        var result = response
        result.headers.add("Vary", "Accept-Encoding")
        guard acceptsGzip(context.headers.values(for: "Accept-Encoding")) else { return result }
        let body = Gzip.deflate(response.body)
        guard body.count < response.body.count else { return result }
        result.body = body
        result.headers.set("Content-Encoding", "gzip")
        return result
    }

    /// Hands `response` to libmicrohttpd, with the request id, and `Connection: close` once the server is stopping.
    private func send(_ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
        var response = response
        response.headers.set("X-Request-Id", context.id)
        if let tls = certificates?.settings { response.headers.set("Strict-Transport-Security", tls.strictTransportSecurity) }
        if state.withLock({ $0.phase != .running }) { response.headers.set("Connection", "close") }
        record(response, for: context)
        guard let prepared = Self.makeResponse(response) else {
            let names = response.headers.map(\.name).joined(separator: ", ")
            configuration.log("request \(context.id): libmicrohttpd refuses one of the response's headers (\(names))")
            var failure = HTTPResponse.error(
                .internalServerError, code: "internal_error", message: "the server failed to answer request \(context.id)")
            failure.headers.set("X-Request-Id", context.id)
            guard let fallback = Self.makeResponse(failure) else { return .NO }
            defer { MHD_destroy_response(fallback) }
            return MHD_queue_response(connection, UInt32(failure.status.rawValue), fallback)
        }
        defer { MHD_destroy_response(prepared) }
        return MHD_queue_response(connection, UInt32(response.status.rawValue), prepared)
    }

    /// Answers `answer` (a 408, or a 400 when the client closed its side) to a request whose body stopped short of its
    /// end, unless it was answered already; libmicrohttpd closes the connection next. libmicrohttpd queues an answer only before it reads a body or once the body is
    /// complete, so this one is written on the connection's socket directly: libmicrohttpd has sent nothing of this
    /// request and sends nothing more on the connection.
    private func answerUnfinishedBody(
        _ context: RequestContext, with answer: HTTPResponse, on connection: OpaquePointer, because reason: String
    ) {
        guard context.abandon() else { return }
        configuration.log("request \(context.id): \(reason); answered \(answer.status)")
        let record = CompletedRequest(
            id: context.id, method: context.method, route: context.route, status: answer.status,
            bytes: answer.body.count, duration: ContinuousClock.now - context.started,
            remoteAddress: context.remoteAddress, principal: nil, clientCertificate: context.clientCertificate)
        answerOnSocket(answer, record: record, on: geoledger_mhd_connection_socket(connection))
    }

    static let requestTimeout = HTTPResponse.error(
        .requestTimeout, code: "request_timeout",
        message: "the request did not arrive in time; nothing of it was used")

    static let incompleteRequest = HTTPResponse.error(
        .badRequest, code: "incomplete_request",
        message: "the connection ended before the request did; nothing of it was used")

    /// Writes the answer to a request that stopped arriving (its headers or its body), on the connection's socket.
    /// - Parameter recorded: whether to report it as a request's answer (a refused connection is counted apart).
    private func answerOnSocket(_ answer: HTTPResponse, record: CompletedRequest, on socket: Int32, recorded: Bool = true) {
        let id = record.id
        var response = answer
        response.headers.set("X-Request-Id", id)
        response.headers.set("Connection", "close")
        if recorded { configuration.completed(record) }
        // On a TLS connection the answer would have to go through its session, which libmicrohttpd's polling thread
        // owns: the client sees the connection closed instead.
        guard socket >= 0, certificates == nil else { return }
        let bytes = Self.wireFormat(response)
        // The socket's buffer is empty (the connection was reading), so a small answer goes out at once; should it
        // not, the client gets the connection closed, as it would without this answer.
        if sendWithoutWaiting(bytes, on: socket) != bytes.count {
            configuration.log("request \(id): the \(answer.status) answer could not be sent whole")
        }
    }

    /// A response as HTTP/1.1 puts it on the wire, for what libmicrohttpd cannot send.
    static func wireFormat(_ response: HTTPResponse) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status.rawValue)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status.rawValue) \(reason)\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }

    /// Reports an answer to the application (``HTTPServer/Configuration/completed``).
    private func record(_ response: HTTPResponse, for context: RequestContext) {
        configuration.completed(CompletedRequest(
            id: context.id, method: context.method, route: context.route, status: response.status,
            bytes: response.body.count, duration: ContinuousClock.now - context.started,
            remoteAddress: context.remoteAddress, principal: response.principal,
            clientCertificate: context.clientCertificate))
    }

    /// libmicrohttpd's copy of the response, or nil if it refuses a header (a line break in a value,
    /// or `Content-Length`, which it sets itself).
    private static func makeResponse(_ response: HTTPResponse) -> OpaquePointer? {
        let created = response.body.withUnsafeBytes { body in
            // Copied: the bytes need not outlive this call.
            MHD_create_response_from_buffer(
                body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        for (name, value) in response.headers where MHD_add_response_header(created, name, value) != .YES {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }

    private static let shuttingDown = HTTPResponse.error(
        .serviceUnavailable, code: "shutting_down", message: "the server is shutting down")

    private static func newRequestID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Writes what the socket takes at once; the bytes written, or -1.
private func sendWithoutWaiting(_ bytes: [UInt8], on socket: Int32) -> Int {
    bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
}

// MARK: - The C callbacks: no captures; the dispatcher comes through the context pointer.

let accessCallback: MHD_AccessHandlerCallback = { context, connection, url, method, version, upload, uploadSize, slot in
    guard let context, let connection, let url, let method, let uploadSize, let slot else { return .NO }
    return Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue()
        .access(connection, url: url, method: method, version: version, upload: upload, uploadSize: uploadSize, slot: slot)
}

let requestLineCallback: geoledger_mhd_request_line_callback = { context, target, connection in
    guard let context, let target, let connection else { return nil }
    return Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().requestLine(connection, target: target)
}

let connectionCallback: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
    guard let context, let connection, let socketContext else { return }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().connection(connection, context: socketContext, code: code)
}

let completedCallback: MHD_RequestCompletedCallback = { context, connection, slot, reason in
    guard let context, let slot else { return }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().completed(connection, slot: slot, reason: reason)
}

let logCallback: MHD_LogCallback = { context, format, arguments in
    guard let context, let format, let arguments else { return }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let length = buffer.withUnsafeMutableBufferPointer { target in
        target.withMemoryRebound(to: CChar.self) { Int(vsnprintf($0.baseAddress, $0.count, format, arguments)) }
    }
    var message = String(decoding: buffer[0..<min(max(length, 0), buffer.count - 1)], as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().configuration.log("libmicrohttpd: " + message)
}
