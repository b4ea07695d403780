internal import CLibPQ
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every wait for the server, bounded by the statement timeout.
///
/// A server that stops answering (a frozen process, a host gone from the network) cannot enforce its own
/// `statement_timeout`, and TCP keepalives do nothing on a Unix socket: only the client can end the wait. So the
/// connection is in libpq's non-blocking mode, statements are sent with `PQsend...`, and each wait for the socket is
/// one `poll` with the timeout; past it the statement is cancelled and the connection closed.
extension Connection {
    /// Sends a statement with `send` (a `PQsend...` call) and reads its results: the last one, as `PQexec` gives it,
    /// or the one that starts a COPY.
    func exec(_ query: String, kind: PostgresError.Kind = .query, _ send: (OpaquePointer) -> Int32) throws -> OpaquePointer? {
        let started = configuration.slowStatementSeconds.map { _ in ContinuousClock.now }
        defer { if let started { noteIfSlow(query, took: ContinuousClock.now - started) } }
        let conn = try handle()
        guard send(conn) == 1 else { throw error(from: nil, query: query, kind: kind) }
        try flushOutput(query: query)
        var last: OpaquePointer?
        do {
            while let result = try nextResult(query: query) {
                if let last { PQclear(last) }
                last = result
                let status = PQresultStatus(result)
                if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH { break }
            }
        } catch {
            if let last { PQclear(last) }
            throw error
        }
        return last
    }

    /// Logs a statement that took ``PostgresConfiguration/slowStatementSeconds`` or longer: its text (whitespace
    /// folded, cut at 500 characters), never its parameters, which may be anyone's data.
    private func noteIfSlow(_ query: String, took duration: Duration) {
        let seconds = duration / .seconds(1)
        guard let threshold = configuration.slowStatementSeconds, seconds >= threshold else { return }
        let folded = query.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        configuration.logger.warning("slow statement", [
            "milliseconds": String(Int((seconds * 1000).rounded())),
            "thresholdMilliseconds": String(Int((threshold * 1000).rounded())),
            "statement": folded.count > 500 ? String(folded.prefix(500)) + "…" : folded,
        ])
    }

    /// The next result of the statement in progress, nil after its last; waits for it within the timeout.
    func nextResult(query: String?) throws -> OpaquePointer? {
        let conn = try handle()
        while PQisBusy(conn) == 1 {
            try waitForSocket(conn, writing: false, query: query)
            // On a broken connection PQisBusy turns false and PQgetResult gives libpq's error.
            if PQconsumeInput(conn) == 0 && PQstatus(conn) == CONNECTION_OK {
                throw error(from: nil, query: query, kind: .connection)
            }
        }
        return PQgetResult(conn)
    }

    /// Sends what libpq holds for the server, waiting within the timeout while the server does not take it.
    func flushOutput(query: String?) throws {
        let conn = try handle()
        while true {
            switch PQflush(conn) {
            case 0:
                return
            case 1:
                // The server may be sending meanwhile; reading it keeps both sides from waiting for each other.
                if try waitForSocket(conn, writing: true, query: query) { _ = PQconsumeInput(conn) }
            default:
                throw error(from: nil, query: query, kind: .connection)
            }
        }
    }

    /// Calls `put` (`PQputCopyData`, `PQputCopyEnd`) until libpq has room for what it queues, waiting within the
    /// timeout for the server to take what is buffered.
    /// - Returns: what `put` last returned: 1 queued, -1 failed.
    func whenRoom(query: String?, _ put: (OpaquePointer) -> Int32) throws -> Int32 {
        let conn = try handle()
        while true {
            let queued = put(conn)
            guard queued == 0 else { return queued }
            if try waitForSocket(conn, writing: true, query: query) { _ = PQconsumeInput(conn) }
        }
    }

    /// A second beyond the statement timeout: when the server still works, its own `statement_timeout` ends a slow
    /// statement first, with its error, and the connection stays usable.
    static let answerGrace = 1.0

    /// Waits until the server has sent something or, when `writing`, can take more, for at most the statement
    /// timeout and ``answerGrace``. Past that, cancels the statement, closes the connection and throws.
    /// - Returns: whether there is something to read.
    @discardableResult
    private func waitForSocket(_ conn: OpaquePointer, writing: Bool, query: String?) throws -> Bool {
        let socket = PQsocket(conn)
        guard socket >= 0 else { throw error(from: nil, query: query, kind: .connection) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), revents: 0)
        let deadline = configuration.statementTimeout.map { DispatchTime.now() + $0 + Self.answerGrace }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)
                milliseconds = Int32(clamping: max(0, (left + 999_999) / 1_000_000))
            }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }
            if ready == 0 { throw timedOut(conn, query: query) }
            if errno != EINTR {
                throw PostgresError(.connection, "waiting for the server failed: \(String(cString: strerror(errno)))", query: query)
            }
        }
    }

    /// Cancels the statement in progress, closes the connection, and says so.
    private func timedOut(_ conn: OpaquePointer, query: String?) -> PostgresError {
        if let cancel = PQgetCancel(conn) { Self.requestCancel(CancelRequest(cancel)) }
        close()
        var message = "the server did not answer within \(Self.secondsText(configuration.statementTimeout ?? 0)): "
            + "the statement was cancelled and the connection closed"
        if let setting = configuration.statementTimeoutSetting { message += "; set \(setting) to change the limit" }
        return PostgresError(.timeout, message, query: query)
    }

    /// Sends the cancel request on a thread of its own and waits a second at most: `PQcancel` connects to the
    /// server anew, and a host that does not answer would hold it for the system's connect timeout.
    private static func requestCancel(_ request: CancelRequest) {
        let sent = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            request.send()
            sent.signal()
        }
        _ = sent.wait(timeout: .now() + 1)
    }

    /// `2 s`, `0.5 s`.
    static func secondsText(_ seconds: Double) -> String {
        (seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)) + " s"
    }
}

/// A `PGcancel`: what `PQcancel` needs, independent of the connection it was taken from.
private final class CancelRequest: @unchecked Sendable {
    // @unchecked: only the thread that sends it uses it; it is freed when both it and its creator let go.
    private let cancel: OpaquePointer

    init(_ cancel: OpaquePointer) { self.cancel = cancel }

    deinit { PQfreeCancel(cancel) }

    func send() {
        var message = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &message, Int32(message.count))
    }
}
