internal import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests whose head stops arriving: answered 408 by a thread of their own, since libmicrohttpd only times out
/// a connection that is silent, not one that trickles.
extension Dispatcher {
    /// Answers 408 to each request whose headers, or request line, have taken longer than the request timeout (a
    /// client that trickles them is never silent long enough for the connection timeout), until the server closes.
    func watchHeads() {
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
}
