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
    let state = Mutex(State())

    struct State {
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


    /// A request from its request line, with its connection's socket and client address: read once a connection,
    /// when it starts (``connection(_:context:code:)``), not once a request.
    func requestStart(
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


    static func watch(of connection: OpaquePointer) -> ConnectionWatch? {
        geoledger_mhd_socket_context(connection).map { Unmanaged<ConnectionWatch>.fromOpaque($0).takeUnretainedValue() }
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

    func makeContext(
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

}
