import Foundation
import HTTPServer
import HTTPTestSupport
import Synchronization
import Testing

/// Handlers run on the server's workers, several at once, and never more at once than there are workers.
@Suite struct ConcurrencyTests {
    /// Every handler waits until `parties` handlers have arrived, or 10 s. If they ran one after another, the first
    /// would wait alone and answer 503.
    @Test func handlersRunInParallelOnSeveralWorkers() async throws {
        let port = TestPort.base + 30
        let parties = 4
        let arrived = Mutex<[String]>([])
        var router = Router()
        router.get("/barrier") { _ in
            arrived.withLock { $0.append(Thread.current.name ?? "") }
            let together = eventually(within: .seconds(10)) { arrived.withLock { $0.count } >= parties }
            return HTTPResponse(status: together ? .ok : .serviceUnavailable)
        }
        let statuses = try await withServer(port: port, router: router, configure: { $0.workerThreads = parties }) { _ in
            try concurrently(parties) { _ in try request(port: port, "GET", "/barrier").status }
        }
        #expect(statuses == Array(repeating: 200, count: parties))
        let threads = arrived.withLock { $0 }
        #expect(Set(threads).count == parties)
        #expect(threads.allSatisfy { $0.hasPrefix("HTTP worker ") })
    }

    @Test func noMoreHandlersRunAtOnceThanThereAreWorkers() async throws {
        let port = TestPort.base + 31
        let counter = Counter()
        var router = Router()
        router.get("/work") { _ in
            counter.enter()
            defer { counter.leave() }
            usleep(300_000)
            return HTTPResponse()
        }
        let statuses = try await withServer(port: port, router: router, configure: { $0.workerThreads = 2 }) { _ in
            try concurrently(6) { _ in try request(port: port, "GET", "/work").status }
        }
        #expect(statuses == Array(repeating: 200, count: 6))
        #expect(counter.calls == 6)
        #expect(counter.peak == 2)
    }
}
