import Foundation
@testable import Postgres
import PostgresTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server that stops answering must not hold the caller: every wait for it ends at the statement timeout with an
/// error that says so. The server process serving a connection is stopped with SIGSTOP, as a hung machine would
/// leave it: it can enforce nothing, not even its own `statement_timeout`.
@Suite(.serialized) struct TimeoutTests {
    static func configuration(timeout: Double?) throws -> PostgresConfiguration {
        try TestDatabase.serverConfiguration().withStatementTimeout(timeout, setBy: "TEST_TIMEOUT")
    }

    /// Runs `body` on a thread of its own and waits `limit` seconds for it. Past that, records an issue and resumes the
    /// server process `pid` so that `body` can end. Whatever happens, the process is resumed before this returns.
    static func ending<T: Sendable>(
        within limit: Double, resuming pid: Int32, _ body: @escaping @Sendable () throws -> T
    ) -> (result: Result<T, any Error>, seconds: Double) {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        Thread.detachNewThread {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        let endedInTime = done.wait(timeout: .now() + limit) == .success
        let seconds = Date().timeIntervalSince(started)
        kill(pid, SIGCONT)
        if !endedInTime {
            Issue.record("still waiting for the stopped server after \(limit) s")
            done.wait()
        }
        return (outcome.withLock { $0! }, seconds)
    }

    static func expectTimeout<T>(_ result: Result<T, any Error>, seconds: Double, limit: Double, closed connection: Connection) {
        guard case .failure(let error) = result else {
            Issue.record("succeeded against a stopped server")
            return
        }
        guard let error = error as? PostgresError else {
            Issue.record("not a PostgresError: \(error)")
            return
        }
        #expect(error.kind == .timeout, "\(error)")
        #expect(error.isConnectionFailure)
        #expect(error.message.contains("the server did not answer within \(Connection.secondsText(limit))"), "\(error.message)")
        #expect(error.message.contains("set TEST_TIMEOUT to change the limit"), "\(error.message)")
        #expect(seconds >= limit && seconds < limit + Connection.answerGrace + 3, "ended after \(seconds) s")
        #expect(!connection.isOpen)
    }

    @Test("a query to a stopped server ends at the timeout, cancelled, the connection closed")
    func query() throws {
        let connection = try Connection.connect(Self.configuration(timeout: 1))
        let pid = connection.backendPID
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let (result, seconds) = Self.ending(within: 15, resuming: pid) { try connection.query("SELECT 1") }
        Self.expectTimeout(result, seconds: seconds, limit: 1, closed: connection)
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
    }

    @Test("a COPY to a stopped server ends at the timeout, whether it waits to send rows or for the answer",
          arguments: [10, 200_000])
    func copy(rows: Int) throws {
        let connection = try Connection.connect(Self.configuration(timeout: 1))
        try connection.execute("CREATE TEMPORARY TABLE frozen_copy (id int8, body text)")
        let pid = connection.backendPID
        defer { kill(pid, SIGCONT) }
        let body = String(repeating: "x", count: 100)
        let (result, seconds) = Self.ending(within: 15, resuming: pid) {
            try connection.copyFrom("COPY frozen_copy FROM STDIN") { writer in
                try writer.row(["0", body])
                kill(pid, SIGSTOP)
                // Far more than the socket holds: the rows wait for a server that does not read them.
                for id in 1..<rows { try writer.row(encoding: [id, body]) }
            }
        }
        Self.expectTimeout(result, seconds: seconds, limit: 1, closed: connection)
    }

    @Test("pipelined statements to a stopped server end at the timeout")
    func pipeline() throws {
        let connection = try Connection.connect(Self.configuration(timeout: 1))
        try connection.prepare("frozen_add", "SELECT $1::int8 + 1")
        let pid = connection.backendPID
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let (result, seconds) = Self.ending(within: 15, resuming: pid) {
            try connection.pipelinePrepared("frozen_add", (0..<100).map { [$0] })
        }
        Self.expectTimeout(result, seconds: seconds, limit: 1, closed: connection)
    }

    @Test("a statement slower than the timeout on a working server ends with the server's error, the connection usable")
    func slowStatement() throws {
        let connection = try Connection.connect(Self.configuration(timeout: 0.5))
        #expect(try connection.query("SHOW statement_timeout").first?.decode(0, as: String.self) == "500ms")
        let started = Date()
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT pg_sleep(5)") }
        #expect(error.isQueryCanceled, "\(error)")
        #expect(error.kind == .query)
        #expect(error.message.contains("statement timeout (0.5 s); set TEST_TIMEOUT to change the limit"), "\(error.message)")
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(try connection.query("SELECT 2").first?.decode(0, as: Int.self) == 2)
    }

    @Test("without a timeout the server's statement_timeout is left alone and a slow statement runs to its end")
    func noTimeout() throws {
        let connection = try Connection.connect(Self.configuration(timeout: nil))
        #expect(try connection.query("SHOW statement_timeout").first?.decode(0, as: String.self) == "0")
        #expect(try connection.query("SELECT pg_sleep(1.2), 3").first?.decode(1, as: Int.self) == 3)
        let zero = try Self.configuration(timeout: 0)
        #expect(zero.statementTimeout == nil)
    }

    @Test("libpq gets TCP keepalives and limits from the timeout, unless the connection string sets them")
    func connectionDefaults() throws {
        let plain = PostgresConfiguration(connectionString: "postgresql://u@db.example/ledger", statementTimeout: 60)
        let options = try ConnInfo.parse(plain.libpqConnectionString)
        func value(_ keyword: String, in options: [ConnInfo.Option]) -> String? {
            options.first { $0.keyword == keyword }?.value
        }
        #expect(value("host", in: options) == "db.example")
        #expect(value("dbname", in: options) == "ledger")
        #expect(value("keepalives_idle", in: options) == "30")
        #expect(value("keepalives_interval", in: options) == "10")
        #expect(value("keepalives_count", in: options) == "3")
        #expect(value("tcp_user_timeout", in: options) == "60000")
        #expect(value("connect_timeout", in: options) == "60")

        let own = PostgresConfiguration(
            connectionString: "postgresql://u@db.example/ledger?keepalives_idle=5&tcp_user_timeout=1000&connect_timeout=7",
            statementTimeout: 60)
        let ownOptions = try ConnInfo.parse(own.libpqConnectionString)
        #expect(value("keepalives_idle", in: ownOptions) == "5")
        #expect(value("tcp_user_timeout", in: ownOptions) == "1000")
        #expect(value("connect_timeout", in: ownOptions) == "7")
        #expect(value("keepalives_count", in: ownOptions) == "3")

        let untimed = try ConnInfo.parse(PostgresConfiguration(connectionString: "host=db.example").libpqConnectionString)
        #expect(value("keepalives_idle", in: untimed) == "30")
        #expect(value("tcp_user_timeout", in: untimed) == nil)
        #expect(value("connect_timeout", in: untimed) == nil)
    }
}
