import Foundation
import Logging
import Postgres
import PostgresTestSupport
import Synchronization
import Testing

/// What a connection says to the logger its configuration carries: a slow statement, a broken connection replaced.
@Suite(.serialized) struct ConnectionLogTests {
    /// A logger that keeps its lines, parsed.
    final class Lines: Sendable {
        private let lines = Mutex<[[String: String]]>([])
        var logger: Logger {
            Logger(minimum: .debug) { [self] line in
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String] ?? ["unparsed": line]
                self.lines.withLock { $0.append(object) }
            }
        }
        var all: [[String: String]] { lines.withLock { $0 } }
        func with(message: String) -> [[String: String]] { all.filter { $0["message"] == message } }
    }

    @Test("a statement over the threshold is logged at warning with its text and time, never its parameters; one under it is not")
    func slowStatement() throws {
        let lines = Lines()
        let configuration = try TestDatabase.serverConfiguration().withLogging(lines.logger, slowStatementSeconds: 0.2)
        let connection = try Connection.connect(configuration)
        defer { connection.close() }
        try connection.query("SELECT $1::text", ["quick"])
        #expect(lines.with(message: "slow statement").isEmpty, "\(lines.all)")
        try connection.query("SELECT pg_sleep(0.3),\n       $1::text", ["secret-value"])
        let slow = lines.with(message: "slow statement")
        #expect(slow.count == 1, "\(lines.all)")
        #expect(slow.first?["level"] == "warning")
        #expect(slow.first?["statement"] == "SELECT pg_sleep(0.3), $1::text")
        #expect(Int(slow.first?["milliseconds"] ?? "") ?? 0 >= 300)
        #expect(slow.first?["thresholdMilliseconds"] == "200")
        #expect(!"\(lines.all)".contains("secret-value"))
    }

    @Test("no threshold, or 0: nothing is logged however slow")
    func noThreshold() throws {
        let lines = Lines()
        let configuration = try TestDatabase.serverConfiguration().withLogging(lines.logger, slowStatementSeconds: 0)
        #expect(configuration.slowStatementSeconds == nil)
        let connection = try Connection.connect(configuration)
        defer { connection.close() }
        try connection.query("SELECT pg_sleep(0.05)")
        #expect(lines.all.isEmpty)
    }

    @Test("the logger and threshold survive another database and another statement timeout")
    func carriedOver() throws {
        let lines = Lines()
        let configuration = try TestDatabase.serverConfiguration().withLogging(lines.logger, slowStatementSeconds: 0.5)
        #expect(configuration.withDatabase("other").slowStatementSeconds == 0.5)
        #expect(configuration.withStatementTimeout(3).slowStatementSeconds == 0.5)
        #expect(configuration.withDatabase("other").logger.minimum == .debug)
    }

    @Test("the pool logs a connection that broke in use, and reconnecting for an idle one found broken")
    func reconnects() throws {
        let lines = Lines()
        let configuration = try TestDatabase.serverConfiguration().withLogging(lines.logger, slowStatementSeconds: nil)
        let pool = ConnectionPool(configuration: configuration, maximumConnections: 1)
        defer { pool.close() }
        _ = try? pool.withConnection { try $0.query("SELECT pg_terminate_backend(pg_backend_pid())") }
        #expect(lines.with(message: "a connection to the database broke and is dropped; the next caller reconnects").count == 1,
                "\(lines.all)")

        let pid = try pool.withConnection { try $0.query("SELECT pg_backend_pid()").first!.decode(0, as: Int32.self) }
        let admin = try Connection.connect(try TestDatabase.serverConfiguration())
        defer { admin.close() }
        #expect(try admin.query("SELECT pg_terminate_backend($1, 5000)", [pid]).first!.decode(0, as: Bool.self))
        #expect(try pool.withConnection { try $0.query("SELECT 1").count } == 1)
        let reconnect = lines.with(message: "an idle connection to the database broke; reconnecting")
        #expect(reconnect.count == 1, "\(lines.all)")
        #expect(reconnect.first?["level"] == "info")
    }
}
