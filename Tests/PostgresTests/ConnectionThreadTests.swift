import Foundation
import Postgres
import PostgresTestSupport
import Synchronization
import Testing

/// libpq allows one thread at a time in a connection. A second thread that calls in while another is inside stops the
/// program with a message that says so, instead of corrupting the connection; one thread after another is fine.
@Suite struct ConnectionThreadTests {
    @Test("a second thread calling in while another is inside a transaction stops the program, saying why")
    func twoThreadsAtOnce() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let connection = try TestDatabase.connectToServer()
            let inside = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                do {
                    try connection.transaction { _ in
                        inside.signal()
                        // Holds the connection until the program stops.
                        DispatchSemaphore(value: 0).wait()
                    }
                } catch {
                    // Without the transaction there is nothing to collide with: the query below succeeds, and the
                    // expected failure does not come.
                    inside.signal()
                }
            }
            inside.wait()
            _ = try connection.query("SELECT 1")
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("a Postgres Connection was used by two threads at once"), "\(message)")
        #expect(message.contains("give each thread a connection of its own"), "\(message)")
    }

    @Test("one thread after another may use a connection, and a transaction's body may query on it")
    func oneThreadAfterAnother() throws {
        let connection = try TestDatabase.connectToServer()
        defer { connection.close() }
        let answers = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        for round in 1...3 {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { done.signal() }
                do {
                    let answer = try connection.transaction { transaction in
                        try transaction.query("SELECT $1::int", [round]).first!.decode(0, as: Int.self)
                    }
                    answers.withLock { $0.append(answer) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            done.wait()
        }
        #expect(failures.withLock { $0 } == [])
        #expect(answers.withLock { $0 } == [1, 2, 3])
        #expect(try connection.query("SELECT 4").first!.decode(0, as: Int.self) == 4)
    }
}
