import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each test listens on a port of its own among 100, on 127.0.0.1 only. The 100 follow the port of the run's
/// database (`make test TEST_PORT=N` sets it in `DATABASE_URL`), so that two test runs on one machine do not meet:
/// 18400-18499 for the default 55439, and a block of its own between 18400 and 28399 for each other port.
enum TestPort {
    static let base: Int = {
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        let text = URLComponents(string: url)?.queryItems?.first { $0.name == "port" }?.value
        guard let databasePort = text.flatMap(Int.init) else { return 18400 }
        return 18400 + ((databasePort - 55439) % 100 + 100) % 100 * 100
    }()
}

/// Starts a server on `port` with test-sized timeouts, runs `body` on a thread of its own, and stops the server
/// whatever happens.
func withServer<T: Sendable>(
    port: Int, router: Router, configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    _ body: @escaping @Sendable (HTTPServer) throws -> T
) async throws -> T {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: port)
    configuration.connectionTimeout = .seconds(5)
    configuration.requestTimeout = .seconds(10)
    configure(&configuration)
    let server = try HTTPServer.start(configuration, router: router)
    do {
        let result = try await onThread { try body(server) }
        try await onThread { server.stop(gracePeriod: .seconds(2)) }
        return result
    } catch {
        try await onThread { server.stop(gracePeriod: .zero) }
        throw error
    }
}

/// One request on a connection of its own.
func request(
    port: Int, _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []
) throws -> RawClient.Response {
    let client = try RawClient(port: port)
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
    try client.send(Array((head + "\r\n").utf8) + body)
    return try client.readResponse(isHead: method == "HEAD")
}

/// URLSession, as a batch job's client would use it. Its callbacks run on its own queue, not the cooperative pool.
let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 32
    configuration.timeoutIntervalForRequest = 20
    return URLSession(configuration: configuration)
}()

/// A request through URLSession, waited for on the calling thread.
func fetch(_ method: String = "GET", port: Int, _ path: String, body: Data? = nil, headers: [String: String] = [:]) throws
    -> RawClient.Response
{
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let outcome = Mutex<Result<RawClient.Response, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    session.dataTask(with: request) { data, response, error in
        let result: Result<RawClient.Response, any Error>
        if let response = response as? HTTPURLResponse {
            let fields = response.allHeaderFields.map { (name: "\($0.key)", value: "\($0.value)") }
            result = .success(RawClient.Response(status: response.statusCode, headers: HTTPHeaders(fields), body: Array(data ?? Data())))
        } else {
            result = .failure(error ?? RawClient.Failure(description: "URLSession gave no response"))
        }
        outcome.withLock { $0 = result }
        done.signal()
    }.resume()
    guard done.wait(timeout: .now() + 30) == .success else { throw RawClient.Failure(description: "URLSession did not answer") }
    return try outcome.withLock { $0! }.get()
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

/// Lines logged by a server.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Waits, polling, until `condition` holds or `limit` passes; returns whether it held. It blocks: call it on a
/// thread of the test's own or in a handler.
func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(5_000)
    }
    return true
}
