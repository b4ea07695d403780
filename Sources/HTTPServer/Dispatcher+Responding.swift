internal import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answering: on a worker, a request decoded, routed, handled and compressed; then handed to libmicrohttpd, or
/// written on the socket where libmicrohttpd cannot send it.
extension Dispatcher {
    /// Runs on a worker: decodes the request, routes it, runs the handler, compresses the answer.
    func respond(to context: RequestContext, body: [UInt8]) -> HTTPResponse {
        let response = switch decode(context, body: body) {
        case .request(let request, let segments): route(request, segments: segments, context: context)
        case .refused(let refusal): refusal
        }
        return compressed(response, for: context)
    }

    func route(_ request: HTTPRequest, segments: [String], context: RequestContext) -> HTTPResponse {
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

    func compressed(_ response: HTTPResponse, for context: RequestContext) -> HTTPResponse {
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
    func send(_ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer) -> MHD_Result {
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

    /// Writes the answer to a request that stopped arriving (its headers or its body), on the connection's socket.
    /// - Parameter recorded: whether to report it as a request's answer (a refused connection is counted apart).
    func answerOnSocket(_ answer: HTTPResponse, record: CompletedRequest, on socket: Int32, recorded: Bool = true) {
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
    func record(_ response: HTTPResponse, for context: RequestContext) {
        configuration.completed(CompletedRequest(
            id: context.id, method: context.method, route: context.route, status: response.status,
            bytes: response.body.count, duration: ContinuousClock.now - context.started,
            remoteAddress: context.remoteAddress, principal: response.principal,
            clientCertificate: context.clientCertificate))
    }

    /// libmicrohttpd's copy of the response, or nil if it refuses a header (a line break in a value,
    /// or `Content-Length`, which it sets itself).
    static func makeResponse(_ response: HTTPResponse) -> OpaquePointer? {
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

    static func newRequestID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Writes what the socket takes at once; the bytes written, or -1.
private func sendWithoutWaiting(_ bytes: [UInt8], on socket: Int32) -> Int {
    bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
}
