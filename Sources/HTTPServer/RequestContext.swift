internal import CMicroHTTPD
import Synchronization

/// One request on its way from libmicrohttpd's polling thread, which reads it, to a worker, which answers it,
/// and back. Its phase decides who may touch the connection: only the polling thread, except for the one
/// `MHD_resume_connection` that hands a dispatched request back.
final class RequestContext: Sendable {
    let id: String
    let started: ContinuousClock.Instant
    let method: HTTPMethod
    /// The path as sent, still percent-encoded.
    let rawPath: [UInt8]
    /// The query's names and values as sent, still percent-encoded (libmicrohttpd has turned `+` into spaces).
    let rawQuery: [(name: [UInt8], value: [UInt8])]
    let headers: HTTPHeaders
    let remoteAddress: String
    let clientCertificate: ClientCertificate?
    private let state = Mutex(State())

    private struct State {
        var body: [UInt8] = []
        var phase = Phase.receiving
        /// Set while dispatched: the suspended connection to resume.
        var connection: MHDHandle?
        /// The route pattern that matched, once routed.
        var route: String?
        /// Set while dispatched, by ``beginCommit()``: the handler's answer is the one sent, even past a cut-off.
        var committing = false
    }

    private enum Phase {
        /// The body is arriving.
        case receiving
        /// The body broke a limit; the rest of it is read and dropped, then this is the answer.
        case refused(HTTPResponse)
        /// A worker has it; the connection is suspended.
        case dispatched
        /// The answer is ready and the connection resumed; the polling thread will send it.
        case answered(HTTPResponse)
        /// The answer went to libmicrohttpd.
        case sent
    }

    /// What the polling thread does once the whole body has arrived.
    enum Completion {
        case respond(HTTPResponse)
        case dispatch
        case wait
    }

    init(
        id: String, started: ContinuousClock.Instant, method: HTTPMethod, rawPath: [UInt8], rawQuery: [(name: [UInt8], value: [UInt8])],
        headers: HTTPHeaders, remoteAddress: String, clientCertificate: ClientCertificate? = nil
    ) {
        self.id = id
        self.started = started
        self.method = method
        self.rawPath = rawPath
        self.rawQuery = rawQuery
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.clientCertificate = clientCertificate
    }

    /// Keeps a piece of the body, or drops it once the body has broken `limit`.
    func receive(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        state.withLock { state in
            guard case .receiving = state.phase else { return }
            guard state.body.count + bytes.count <= limit else {
                state.body = []
                state.phase = .refused(.error(
                    .contentTooLarge, code: "body_too_large",
                    message: "the request body is larger than the limit of \(limit) bytes"))
                return
            }
            state.body.append(contentsOf: bytes)
        }
    }

    /// Called on the polling thread each time libmicrohttpd reports the body complete.
    func complete() -> Completion {
        state.withLock { state in
            switch state.phase {
            case .receiving: return .dispatch
            case .refused(let response), .answered(let response):
                state.phase = .sent
                return .respond(response)
            case .dispatched, .sent: return .wait
            }
        }
    }

    /// Hands the request to a worker: records the connection to resume and gives up the body.
    func dispatch(_ connection: MHDHandle) -> [UInt8] {
        state.withLock { state in
            state.phase = .dispatched
            state.connection = connection
            defer { state.body = [] }
            return state.body
        }
    }

    /// Claims the answer to a request whose body stopped short (a 408): true while the body was still arriving, and
    /// then the request is answered and its body dropped; false once anything else answered it.
    func abandon() -> Bool {
        state.withLock { state in
            switch state.phase {
            case .receiving, .refused:
                state.phase = .sent
                state.body = []
                return true
            case .dispatched, .answered, .sent:
                return false
            }
        }
    }

    /// The route pattern that matched, once a worker routed the request.
    var route: String? {
        get { state.withLock { $0.route } }
        set { state.withLock { $0.route = newValue } }
    }

    var isDispatched: Bool {
        state.withLock { if case .dispatched = $0.phase { true } else { false } }
    }

    /// Claims the answer for the handler before it does what cannot be undone (commits): true while the server
    /// has not cut the request off, and from then on a stopping server waits for the handler's answer instead of
    /// answering 503. False once the request was cut off (answered 503): the handler must then undo its work.
    /// Decided under the same lock as the cut-off, so exactly one of the two answers.
    func beginCommit() -> Bool {
        state.withLock { state in
            guard case .dispatched = state.phase else { return false }
            state.committing = true
            return true
        }
    }

    /// Sets the answer and resumes the connection, unless the request was answered already (a stopping server
    /// answers what is left 503). Returns whether this answer is the one sent. Resuming under the lock makes
    /// the resume happen exactly once, before the server can stop the daemon.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        resume(with: response, unlessCommitting: false)
    }

    /// Answers `response` in the handler's place (a stopping server's 503), unless the handler has begun
    /// committing (``beginCommit()``) or answered. Returns whether this answer is the one sent.
    func cutOff(_ response: HTTPResponse) -> Bool {
        resume(with: response, unlessCommitting: true)
    }

    /// Whether the handler has claimed the answer (``beginCommit()``) and not answered yet.
    var isCommitting: Bool {
        state.withLock { state in
            if case .dispatched = state.phase { state.committing } else { false }
        }
    }

    private func resume(with response: HTTPResponse, unlessCommitting: Bool) -> Bool {
        state.withLock { state in
            guard case .dispatched = state.phase, let connection = state.connection else { return false }
            if unlessCommitting && state.committing { return false }
            state.phase = .answered(response)
            state.connection = nil
            MHD_resume_connection(connection.pointer)
            return true
        }
    }
}

/// A request whose request line has arrived and whose headers have not: what the server knows of it, should the
/// client stop sending them (it is answered 408), and what the request takes on once they have arrived.
final class RequestStart: Sendable {
    let id: String
    /// When its first bytes came: its request line's, when they trickled in, else the whole line's.
    let started: ContinuousClock.Instant
    /// The length of the request target as sent, path and query.
    let targetBytes: Int
    let remoteAddress: String
    let clientCertificate: ClientCertificate?
    /// The connection's socket, for a 408.
    let socket: Int32
    private let claimed = Mutex(false)

    init(
        id: String, started: ContinuousClock.Instant = .now, targetBytes: Int, remoteAddress: String,
        clientCertificate: ClientCertificate? = nil, socket: Int32
    ) {
        self.id = id
        self.started = started
        self.targetBytes = targetBytes
        self.remoteAddress = remoteAddress
        self.clientCertificate = clientCertificate
        self.socket = socket
    }

    /// True for the first caller only: the request is read on once its headers are whole, or answered 408 when
    /// they take too long, never both.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }

    /// The record of its answer.
    func record(of answer: HTTPResponse) -> CompletedRequest {
        .beforeHeaders(
            id: id, answer: answer, started: started, remoteAddress: remoteAddress, clientCertificate: clientCertificate)
    }
}

/// A connection, watched between its requests for a request line that takes longer than the request timeout.
final class ConnectionWatch: Sendable {
    let socket: Int32
    let remoteAddress: String
    /// The TLS credentials its session was given: held until libmicrohttpd has ended the session (it does so before
    /// it reports the connection closed), whatever reloads meanwhile.
    let credentials: TLSCredentials?
    private let answered = Mutex(Answered.open)

    private enum Answered {
        case open, answered, refused
    }
    /// The client's certificate, read once the handshake is done: nil before, `.some(nil)` when it sent none.
    private let certificate = Mutex<ClientCertificate??>(nil)

    /// The connection's socket and client address, as libmicrohttpd knows them.
    init(_ connection: OpaquePointer, credentials: TLSCredentials? = nil) {
        socket = geoledger_mhd_connection_socket(connection)
        remoteAddress = geoledger_mhd_client_address(connection).map { socketAddressText($0).host } ?? ""
        self.credentials = credentials
    }

    /// The client's verified certificate on a TLS connection, once its handshake is done (a request has arrived).
    func clientCertificate(_ connection: OpaquePointer) -> ClientCertificate? {
        guard credentials != nil else { return nil }
        return certificate.withLock { known in
            if let known { return known }
            let read = ClientCertificate.of(connection)
            known = .some(read)
            return read
        }
    }

    /// Whether it was answered 408, or refused past a connection limit: libmicrohttpd closes it next.
    var isAnswered: Bool { answered.withLock { $0 != .open } }

    /// Whether it was refused past a connection limit, and so never counted as open.
    var isRefused: Bool { answered.withLock { $0 == .refused } }

    func markAnswered(refused: Bool = false) { answered.withLock { $0 = refused ? .refused : .answered } }
}

/// The address of a libmicrohttpd object (a daemon, a connection), to keep under a lock.
// @unchecked: it is only an address; which thread may use the object is decided where the handle is kept.
struct MHDHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
