import Foundation
import Postgres
import PostgresTestSupport
import Synchronization
import Testing

@Suite(.serialized) struct ConnectionPoolTests {
    @Test func eachConnectionServesOneThreadAtATime() throws {
        let maximum = 3
        let pool = ConnectionPool(configuration: try TestDatabase.serverConfiguration(), maximumConnections: maximum)
        defer { pool.close() }
        let inUse = Mutex<Set<Int32>>([])
        let seen = Mutex<Set<Int32>>([])
        let overlaps = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let threads = 8
        let rounds = 15
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                for _ in 0..<rounds {
                    do {
                        try pool.withConnection { connection in
                            let pid = try #require(try connection.query("SELECT pg_backend_pid()").first).decode(0, as: Int32.self)
                            let (inserted, _) = inUse.withLock { $0.insert(pid) }
                            if !inserted { overlaps.add(1, ordering: .relaxed) }
                            seen.withLock { _ = $0.insert(pid) }
                            try connection.query("SELECT pg_sleep(0.002)")
                            inUse.withLock { _ = $0.remove(pid) }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(seen.withLock { $0.count } <= maximum)
        #expect(seen.withLock { $0.count } >= 1)
        #expect(pool.openConnections <= maximum)
    }

    @Test func terminatedBackendIsReplacedOnNextUse() throws {
        let configuration = try TestDatabase.serverConfiguration()
        let pool = ConnectionPool(configuration: configuration, maximumConnections: 1)
        defer { pool.close() }
        let firstPID = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").first!.decode(0, as: Int32.self) }

        let admin = try Connection.connect(configuration)
        // The timeout form waits until the backend has exited, so its socket is closed.
        let terminated = try admin.query("SELECT pg_terminate_backend($1, 5000)", [firstPID]).first!.decode(0, as: Bool.self)
        #expect(terminated)

        let one = try pool.withConnection { try $0.query("SELECT 1").first!.decode(0, as: Int.self) }
        #expect(one == 1)
        let secondPID = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").first!.decode(0, as: Int32.self) }
        #expect(secondPID != firstPID)
        #expect(pool.openConnections == 1)
    }

    @Test func connectionBrokenInsideBodyIsNotReturned() throws {
        let pool = ConnectionPool(configuration: try TestDatabase.serverConfiguration(), maximumConnections: 1)
        defer { pool.close() }
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { connection in
                // The backend ends itself mid-query.
                try connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
            }
        }
        #expect(error.kind == .connection)
        #expect(pool.openConnections == 0)
        #expect(try pool.withConnection { try $0.query("SELECT 1").count } == 1)
    }

    @Test func openTransactionIsRolledBackOnReturn() throws {
        let pool = ConnectionPool(configuration: try TestDatabase.serverConfiguration(), maximumConnections: 1)
        defer { pool.close() }
        try pool.withConnection { try $0.execute("BEGIN; SET LOCAL application_name = 'left-open'") }
        let name = try pool.withConnection { try $0.query("SELECT current_setting('application_name')").first!.decode(0, as: String.self) }
        #expect(name != "left-open")
    }

    @Test func closedPoolRefusesWork() throws {
        let pool = ConnectionPool(configuration: try TestDatabase.serverConfiguration(), maximumConnections: 2)
        _ = try pool.withConnection { try $0.query("SELECT 1") }
        pool.close()
        #expect(pool.openConnections == 0)
        let error = try #require(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error.kind == .pool)
    }

    @Test func checkoutTimesOutWhenAllAreBusy() throws {
        let pool = ConnectionPool(configuration: try TestDatabase.serverConfiguration(), maximumConnections: 1, checkoutTimeout: 0.05)
        defer { pool.close() }
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let holderFailure = Mutex<String?>(nil)
        Thread {
            do {
                try pool.withConnection { _ in
                    holding.signal()
                    release.wait()
                }
            } catch {
                holderFailure.withLock { $0 = "\(error)" }
                holding.signal()
            }
        }.start()
        holding.wait()
        try #require(holderFailure.withLock { $0 } == nil)
        let error = try #require(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error.kind == .pool)
        release.signal()
    }
}
