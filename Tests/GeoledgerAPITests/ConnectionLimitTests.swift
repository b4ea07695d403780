import DatabaseTestSupport
import Foundation
import HTTPTestSupport
import RawHTTPClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `serve --max-connections` and `--max-connections-per-client` under 2,000 idle connections.
@Suite("serve's connection limits", .serialized)
struct ConnectionLimitTests {
    @Test("with 2,000 idle connections open, /healthz answers within 100 ms (the median of 7; on a busy machine, no slower than ten times the time before they opened); one more from a client at its limit is answered 429, one past the total 503; /metrics counts them; the idle ones are still served")
    func idleConnections() async throws {
        try Self.raiseOpenFileLimit(to: 8192)
        try await ServeProcess.onFreshDatabase { url, _ in
            let serve = try ServeProcess(url: url, arguments: ["--max-connections", "2100", "--max-connections-per-client", "1000"])
            // Alone on the machine /healthz takes a few ms with or without the idle connections, about four times as
            // long with them: each poll passes over every socket. With the other tests running at once it can take
            // over 100 ms with none open, and the polling thread, needing more of the processors, waits longer for
            // them. So the bound is 100 ms, or, on a machine that busy, ten times the time it took before the idle
            // connections were opened.
            let before = try Self.medianHealthTime(port: serve.port)
            // Every address of 127/8 is the loopback interface: each is a client address of its own.
            var idle: [Int32] = []
            defer { for socket in idle { close(socket) } }
            for client in ["127.0.0.2", "127.0.0.3"] {
                for _ in 0..<1000 { idle.append(try Self.connect(from: client, port: serve.port)) }
            }
            #expect(try Self.waitForOpen(2000 + 1, port: serve.port) == 0, "the 2,000 idle connections were not all accepted")

            let median = try Self.medianHealthTime(port: serve.port)
            #expect(
                median < max(.milliseconds(100), before * 10),
                "/healthz took \(median) (median of 7) with 2,000 idle connections open, \(before) before")

            let overClient = try Self.connect(from: "127.0.0.2", port: serve.port)
            defer { close(overClient) }
            let perClient = try Self.answer(on: overClient)
            #expect(perClient.hasPrefix("HTTP/1.1 429"), "\(perClient)")
            #expect(perClient.contains("too_many_connections_from_client") && perClient.contains("Retry-After: 1"), "\(perClient)")

            #expect(try Self.waitForOpen(2000 + 1, port: serve.port) == 0)
            // 98 more fit whether or not the connection /metrics was read on has closed yet; then one at a time until
            // the server is full: the first it refuses is answered 503.
            for _ in 0..<98 { idle.append(try Self.connect(from: "127.0.0.4", port: serve.port)) }
            var total = ""
            for _ in 0..<3 where total.isEmpty {
                let socket = try Self.connect(from: "127.0.0.4", port: serve.port)
                idle.append(socket)
                total = try Self.answer(on: socket, within: .milliseconds(500))
            }
            #expect(idle.count == 2000 + 98 + 3 || total.hasPrefix("HTTP/1.1 503"), "no connection was refused past the total")
            #expect(total.hasPrefix("HTTP/1.1 503"), "\(total)")
            #expect(total.contains("too_many_connections") && total.contains("2100 connections open"), "\(total)")

            let added = idle.count - 2000
            for socket in idle.suffix(added) { close(socket) }
            idle.removeLast(added)
            // Until the server has seen them closed, it may refuse the connection /metrics is asked on.
            let probesRefused = try #require(try Self.waitForOpen(2000 + 1, port: serve.port))
            let metrics = try ServeProcess.get("/metrics", token: "", port: serve.port).text
            #expect(metrics.contains("geoledger_http_connections_max 2100\n"), "\(metrics)")
            #expect(metrics.contains("geoledger_http_connections_per_client_max 1000\n"))
            #expect(
                metrics.contains("geoledger_http_connections_refused_total{limit=\"total\"} \(1 + probesRefused)\n"), "\(metrics)")
            #expect(metrics.contains("geoledger_http_connections_refused_total{limit=\"per_client\"} 1\n"), "\(metrics)")
            #expect(metrics.contains("geoledger_http_idle_timeout_seconds 30\n"))

            // An idle connection held through all this is served.
            let first = idle[0]
            let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
            #expect(request.withUnsafeBytes { send(first, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
            #expect(try Self.answer(on: first).hasPrefix("HTTP/1.1 200"))

            kill(serve.pid, SIGTERM)
            #expect(try serve.waitForExit(seconds: 30) == 0)
            #expect(serve.standardError.contains("refusing a connection from 127.0.0.2: 127.0.0.2 has 1000 connections open"))
        }
    }

    @Test("--max-connections and --max-connections-per-client take whole numbers in range, or are usage errors naming them", arguments: [
        (["--max-connections", "0"], "--max-connections must be a whole number from 1 to 100000, not '0'"),
        (["--max-connections", "many"], "--max-connections must be a whole number from 1 to 100000, not 'many'"),
        (["--max-connections", "10", "--max-connections-per-client", "11"], "--max-connections-per-client must be a whole number from 0 to 10, not '11'"),
    ])
    func invalidLimits(_ arguments: [String], _ message: String) throws {
        let outcome = try GeoledgerProcess.run(["serve"] + arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
    }

    /// The median time of 7 `GET /healthz`, each on a connection of its own.
    static func medianHealthTime(port: Int) throws -> Duration {
        var times: [Duration] = []
        for _ in 0..<7 {
            let started = ContinuousClock.now
            let health = try ServeProcess.get("/healthz", token: "", port: port)
            times.append(ContinuousClock.now - started)
            #expect(health.status == 200)
        }
        return times.sorted()[3]
    }

    /// Raises this process's limit of open files (which `serve`, started from it, inherits).
    static func raiseOpenFileLimit(to wanted: Int) throws {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw RawClient.Failure(description: "getrlimit failed") }
        guard limit.rlim_max >= rlim_t(wanted) else {
            throw RawClient.Failure(description: "the hard limit of open files is \(limit.rlim_max); this test needs \(wanted) (ulimit -Hn)")
        }
        if limit.rlim_cur < rlim_t(wanted) {
            limit.rlim_cur = rlim_t(wanted)
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
                throw RawClient.Failure(description: "setrlimit(RLIMIT_NOFILE, \(wanted)) failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A TCP connection to 127.0.0.1:`port` from the address `source`.
    static func connect(from source: String, port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawClient.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        func address(_ host: String, _ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            return address
        }
        var local = address(source, 0), remote = address("127.0.0.1", port)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, length) }
        }
        guard bound == 0, connected == 0 else {
            let code = errno
            close(socket)
            throw RawClient.Failure(description: "connecting from \(source): \(String(cString: strerror(code)))")
        }
        return socket
    }

    /// What the server sends on `socket` until it closes it, or `limit` has passed.
    static func answer(on socket: Int32, within limit: Duration = .seconds(5)) throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits up to 10 s for `/metrics` to report `count` connections open (its own among them); the number of its
    /// own connections the server refused meanwhile, past its total, or nil when the count never came.
    static func waitForOpen(_ count: Int, port: Int) throws -> Int? {
        let deadline = ContinuousClock.now + .seconds(10)
        var refused = 0
        while ContinuousClock.now < deadline {
            let response = try ServeProcess.get("/metrics", token: "", port: port)
            if response.status == 503 && response.errorCode == "too_many_connections" { refused += 1 }
            if response.text.contains("geoledger_http_connections_open \(count)\n") { return refused }
            usleep(50_000)
        }
        return nil
    }
}
