import Foundation
import HTTPServer
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each test listens on a port of its own in 18400-18499, on 127.0.0.1 only.
enum TestPort {
    static let base = 18400
}

/// Starts a server on `port` with test-sized timeouts, runs `body`, and stops the server whatever happens.
func withServer(
    port: Int, router: Router, configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    _ body: (HTTPServer) async throws -> Void
) async throws {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: port)
    configuration.connectionTimeout = .seconds(5)
    configuration.requestTimeout = .seconds(10)
    configure(&configuration)
    let server = try HTTPServer.start(configuration, router: router)
    do {
        try await body(server)
    } catch {
        server.stop(gracePeriod: .zero)
        throw error
    }
    server.stop(gracePeriod: .seconds(2))
}

/// URLSession, as a batch job's client would use it, with no connection limit below what the tests need.
let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 32
    configuration.timeoutIntervalForRequest = 15
    return URLSession(configuration: configuration)
}()

struct Fetched: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: Data
}

func fetch(_ method: String = "GET", port: Int, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws
    -> Fetched
{
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    let fields = http.allHeaderFields.map { (name: "\($0.key)", value: "\($0.value)") }
    return Fetched(status: http.statusCode, headers: HTTPHeaders(fields), body: data)
}

/// The `error` object of an error document.
func errorObject(_ body: some Collection<UInt8>) throws -> [String: String] {
    let document = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    return try #require(document?["error"] as? [String: String])
}

/// Counts calls, and how many run at once.
final class Counter: Sendable {
    private let state = Mutex((calls: 0, running: 0, peak: 0))

    var calls: Int { state.withLock { $0.calls } }
    var peak: Int { state.withLock { $0.peak } }

    func enter() {
        state.withLock { state in
            state.calls += 1
            state.running += 1
            state.peak = max(state.peak, state.running)
        }
    }

    func leave() {
        state.withLock { $0.running -= 1 }
    }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

/// Waits, polling, until `condition` holds or `limit` passes; returns whether it held. For tests: it sleeps
/// without holding one of the few threads of Swift's cooperative pool.
func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// The same for handlers, which run on the server's own threads and may block.
func blockingEventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(5_000)
    }
    return true
}
