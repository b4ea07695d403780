import Dispatch
import Synchronization
internal import CLibPQ

/// At most `maximumConnections` connections, opened when first needed and handed to one
/// caller at a time. Callers block while all are in use.
///
/// A connection that broke is closed instead of being returned, and an idle one is checked
/// (without a round trip) before it is handed out, so the next caller gets a working one.
public final class ConnectionPool: Sendable {
    public let configuration: PostgresConfiguration
    public let maximumConnections: Int
    /// How long `withConnection` waits for a free connection; `nil` waits as long as it takes.
    public let checkoutTimeout: Double?

    private let permits: DispatchSemaphore
    private let state = Mutex(State())

    private struct State {
        var idle: [Connection] = []
        var open = 0
        var inUse = 0
        var isClosed = false
    }

    public init(configuration: PostgresConfiguration, maximumConnections: Int = 8, checkoutTimeout: Double? = nil) {
        precondition(maximumConnections > 0, "a pool needs at least one connection")
        self.configuration = configuration
        self.maximumConnections = maximumConnections
        self.checkoutTimeout = checkoutTimeout
        self.permits = DispatchSemaphore(value: maximumConnections)
    }

    /// Connections currently open, idle or in use.
    public var openConnections: Int {
        state.withLock { $0.open }
    }

    /// Callers holding a connection now (or opening one for themselves).
    public var connectionsInUse: Int {
        state.withLock { $0.inUse }
    }

    /// Runs `body` with a connection no other thread holds meanwhile. Blocks while all are in use.
    /// Do not call it again from inside `body` on the same pool: with every connection taken it
    /// would wait for itself.
    public func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try throwIfClosed()
        if let checkoutTimeout {
            guard permits.wait(timeout: .now() + checkoutTimeout) == .success else {
                throw PostgresError(.pool, "no connection became free within \(checkoutTimeout) s (\(maximumConnections) in use)")
            }
        } else {
            permits.wait()
        }
        state.withLock { $0.inUse += 1 }
        defer {
            state.withLock { $0.inUse -= 1 }
            permits.signal()
        }

        let connection = try checkOut()
        let value: T
        do {
            value = try body(connection)
        } catch {
            checkIn(connection, after: error)
            throw error
        }
        checkIn(connection, after: nil)
        return value
    }

    /// Closes the idle connections now and the others when they come back; later
    /// `withConnection` calls throw.
    public func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            let idle = state.idle
            state.open -= idle.count
            state.idle = []
            return idle
        }
        for connection in idle { connection.close() }
    }

    private func throwIfClosed() throws {
        if state.withLock({ $0.isClosed }) {
            throw PostgresError(.pool, "the connection pool is closed")
        }
    }

    private func checkOut() throws -> Connection {
        while true {
            let candidate: Connection? = try state.withLock { state in
                if state.isClosed { throw PostgresError(.pool, "the connection pool is closed") }
                return state.idle.popLast()
            }
            guard let candidate else { break }
            if candidate.isHealthy() { return candidate }
            candidate.close()
            state.withLock { $0.open -= 1 }
            configuration.logger.info("an idle connection to the database broke; reconnecting")
        }
        let connection: Connection
        do {
            connection = try Connection.connect(configuration)
        } catch let error as PostgresError {
            configuration.logger.warning("cannot connect to the database", ["error": error.message])
            throw error
        }
        state.withLock { $0.open += 1 }
        return connection
    }

    private func checkIn(_ connection: Connection, after error: Error?) {
        var reusable = connection.isOpen && !(error.map(Self.breaksConnection) ?? false)
        if reusable {
            switch connection.transactionStatus {
            case PQTRANS_IDLE:
                break
            case PQTRANS_INTRANS, PQTRANS_INERROR:
                // The body left a transaction open: end it so the next caller starts clean.
                reusable = (try? connection.execute("ROLLBACK")) != nil
            default:
                reusable = false
            }
        }
        let kept = state.withLock { state in
            guard reusable, !state.isClosed else {
                state.open -= 1
                return false
            }
            state.idle.append(connection)
            return true
        }
        if !kept { connection.close() }
        if let error, !reusable, Self.breaksConnection(error) {
            configuration.logger.warning(
                "a connection to the database broke and is dropped; the next caller reconnects",
                ["error": (error as? PostgresError)?.message ?? "\(error)"])
        }
    }

    private static func breaksConnection(_ error: Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.kind == .connection
    }
}
