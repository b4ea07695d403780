internal import CMicroHTTPD
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
    private let state = Mutex(State())

    private struct State {
        var phase = Phase.running
        /// Requests from their first callback until libmicrohttpd reports them completed.
        var active: [ObjectIdentifier: RequestContext] = [:]
    }

    enum Phase {
        case running
        /// Not accepting connections; requests on open ones are still answered, with `Connection: close`.
        case draining
        /// No request is handed to a worker any more: each is answered 503.
        case closed
    }

    init(configuration: HTTPServer.Configuration, router: Router) {
        self.configuration = configuration
        self.router = router
        self.workers = WorkerPool(threads: configuration.workerThreads, name: "HTTP worker")
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

    /// libmicrohttpd calls this when a request's headers have arrived (`slot` empty), for each piece of the body
    /// (`uploadSize` > 0), and when the body is complete (`uploadSize` 0), again after a resume.
    func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = slot.pointee else {
            let context = makeContext(connection, url: url, method: method)
            slot.pointee = Unmanaged.passRetained(context).toOpaque()
            let phase = state.withLock { state in
                state.active[ObjectIdentifier(context)] = context
                return state.phase
            }
            if let refusal = refusalBeforeBody(context, phase: phase) {
                return send(refusal, for: context, on: connection)
            }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

        if uploadSize.pointee > 0 {
            // A client that trickles its body is cut off once the request timeout has passed.
            guard ContinuousClock.now - context.started <= configuration.requestTimeout else {
                configuration.log("request \(context.id): the body took longer than the request timeout; connection closed")
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

    /// libmicrohttpd is done with a request: answered, failed, timed out or shut down.
    func completed(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let existing = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeRetainedValue()
        state.withLock { _ = $0.active.removeValue(forKey: ObjectIdentifier(context)) }
    }

    // MARK: Reading and answering

    private func makeContext(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>
    ) -> RequestContext {
        var headers = HTTPHeaders()
        var query: [(name: [UInt8], value: [UInt8])] = []
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { context, _, key, keySize, value, valueSize in
                let headers = context!.assumingMemoryBound(to: HTTPHeaders.self)
                headers.pointee.add(
                    String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self),
                    String(
                        decoding: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize), as: UTF8.self))
                return .YES
            }, pointer)
        }
        withUnsafeMutablePointer(to: &query) { pointer in
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, { context, _, key, keySize, value, valueSize in
                let query = context!.assumingMemoryBound(to: [(name: [UInt8], value: [UInt8])].self)
                query.pointee.append((
                    Array(UnsafeRawBufferPointer(start: key, count: keySize)),
                    Array(UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))))
                return .YES
            }, pointer)
        }
        let remote = geoledger_mhd_client_address(connection).map { socketAddressText($0).host } ?? ""
        return RequestContext(
            id: Self.newRequestID(), method: HTTPMethod(rawValue: String(cString: method)),
            rawPath: Array(UnsafeRawBufferPointer(start: url, count: strlen(url))), rawQuery: query,
            headers: headers, remoteAddress: remote)
    }

    /// The answers given before reading the body: a stopped server, a declared body over the limit,
    /// an encoding the server cannot read.
    private func refusalBeforeBody(_ context: RequestContext, phase: Phase) -> HTTPResponse? {
        if phase == .closed { return Self.shuttingDown }
        if let declared = context.headers["Content-Length"].flatMap({ UInt64($0.trimmingASCIISpaces) }),
            declared > UInt64(configuration.maximumBodyBytes)
        {
            return .error(
                .contentTooLarge, code: "body_too_large",
                message: "the request body is \(declared) bytes; the limit is \(configuration.maximumBodyBytes) bytes")
        }
        if case .unsupported(let coding) = ContentCoding(context.headers["Content-Encoding"]) {
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
                query: request.query, headers: request.headers, body: request.body, remoteAddress: request.remoteAddress)
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
        if state.withLock({ $0.phase != .running }) { response.headers.set("Connection", "close") }
        configuration.completed(CompletedRequest(
            id: context.id, method: context.method, route: context.route, status: response.status,
            bytes: response.body.count, duration: ContinuousClock.now - context.started,
            remoteAddress: context.remoteAddress, principal: response.principal))
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

// MARK: - The C callbacks: no captures; the dispatcher comes through the context pointer.

let accessCallback: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, slot in
    guard let context, let connection, let url, let method, let uploadSize, let slot else { return .NO }
    return Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue()
        .access(connection, url: url, method: method, upload: upload, uploadSize: uploadSize, slot: slot)
}

let completedCallback: MHD_RequestCompletedCallback = { context, _, slot, _ in
    guard let context, let slot else { return }
    Unmanaged<Dispatcher>.fromOpaque(context).takeUnretainedValue().completed(slot)
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
