internal import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is refused before a handler runs: a connection past a limit, too many query parameters, a head the server
/// does not read, a body over the limit or framed two ways, a request that stopped arriving.
extension Dispatcher {
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

    /// Answers a connection past a limit as soon as it starts (over TLS, before the handshake, it is closed without
    /// an answer) and closes it; any request it sends is dropped (``requestLine(_:target:)``).
    func refuse(_ watched: ConnectionWatch, _ refusal: ConnectionLimits.Refusal, report: Bool) {
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

    /// What the server checks of a request line and headers, besides the headers themselves.
    struct RequestHead {
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
    func refusalBeforeBody(_ context: RequestContext, head: RequestHead, phase: Phase) -> HTTPResponse? {
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

    /// Answers `answer` (a 408, or a 400 when the client closed its side) to a request whose body stopped short of its
    /// end, unless it was answered already; libmicrohttpd closes the connection next. libmicrohttpd queues an answer only before it reads a body or once the body is
    /// complete, so this one is written on the connection's socket directly: libmicrohttpd has sent nothing of this
    /// request and sends nothing more on the connection.
    func answerUnfinishedBody(
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

    static let shuttingDown = HTTPResponse.error(
        .serviceUnavailable, code: "shutting_down", message: "the server is shutting down")
}
