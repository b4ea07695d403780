import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// The connections open and refused, for metrics.
    public struct ConnectionStatistics: Sendable, Equatable {
        /// Connections open now (refused ones not counted).
        public var open: Int
        /// ``Configuration/maximumConnections``.
        public var maximum: Int
        /// ``Configuration/maximumConnectionsPerClient``; 0 when there is no such limit.
        public var maximumPerClient: Int
        /// Connections refused since the start because `maximum` were open.
        public var refusedOverMaximum: Int
        /// Connections refused since the start because their client address had `maximumPerClient` open.
        public var refusedOverPerClient: Int
        /// ``Configuration/connectionTimeout``, in whole seconds: a connection silent for this long is closed.
        public var idleTimeoutSeconds: Int
    }

    /// The connections open and refused now.
    public var connectionStatistics: ConnectionStatistics {
        var statistics = dispatcher.limits.statistics
        statistics.idleTimeoutSeconds = Int(configuration.connectionTimeoutSeconds)
        return statistics
    }
}

/// Counts the open connections, in all and per client address, and refuses one past either limit when it starts:
/// the server answers it itself (503 or 429, on a plain connection) and closes it, so that a client sees why.
/// libmicrohttpd's own limits are set above these (``backstop(_:)``): they close a connection without a word.
final class ConnectionLimits: Sendable {
    enum Refusal {
        case maximum(Int)
        case perClient(address: String, Int)

        var message: String {
            switch self {
            case .maximum(let limit):
                "the server has \(limit) connections open, its limit; try again shortly"
            case .perClient(let address, let limit):
                "\(address) has \(limit) connections open, the limit per client address; reuse one of them"
            }
        }

        var answer: HTTPResponse {
            var response: HTTPResponse = switch self {
            case .maximum: .error(.serviceUnavailable, code: "too_many_connections", message: message)
            case .perClient: .error(429, code: "too_many_connections_from_client", message: message)
            }
            response.headers.set("Retry-After", "1")
            return response
        }
    }

    let maximum: Int
    let maximumPerClient: Int
    private let state = Mutex(State())

    private struct State {
        var open = 0
        var perAddress: [String: Int] = [:]
        var refusedOverMaximum = 0
        var refusedOverPerClient = 0
        var lastReported: ContinuousClock.Instant?
    }

    init(maximum: Int, perClient: Int) {
        self.maximum = maximum
        self.maximumPerClient = perClient
    }

    /// libmicrohttpd's limit for one of these: far enough above it that the server refuses with an answer first, and
    /// libmicrohttpd only catches a flood that arrives faster than refused connections close.
    static func backstop(_ limit: Int) -> Int {
        limit == 0 ? 0 : limit + max(16, limit / 8)
    }

    /// Counts a connection that starts, or says why it is refused (and then it is not counted). Also returns whether
    /// a log line should say so: the first refusal after a minute without one.
    func admit(_ address: String) -> (refusal: Refusal?, report: Bool) {
        state.withLock { state in
            let refusal: Refusal?
            if state.open >= maximum {
                state.refusedOverMaximum += 1
                refusal = .maximum(maximum)
            } else if maximumPerClient > 0 && state.perAddress[address, default: 0] >= maximumPerClient {
                state.refusedOverPerClient += 1
                refusal = .perClient(address: address, maximumPerClient)
            } else {
                state.open += 1
                state.perAddress[address, default: 0] += 1
                return (nil, false)
            }
            let now = ContinuousClock.now
            let report = state.lastReported.map { now - $0 > .seconds(60) } ?? true
            if report { state.lastReported = now }
            return (refusal, report)
        }
    }

    /// A counted connection closed.
    func release(_ address: String) {
        state.withLock { state in
            state.open -= 1
            let left = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = left > 0 ? left : nil
        }
    }

    var statistics: HTTPServer.ConnectionStatistics {
        state.withLock { state in
            HTTPServer.ConnectionStatistics(
                open: state.open, maximum: maximum, maximumPerClient: maximumPerClient,
                refusedOverMaximum: state.refusedOverMaximum, refusedOverPerClient: state.refusedOverPerClient,
                idleTimeoutSeconds: 0)
        }
    }
}

/// The process's limit of open files, which every connection counts against.
enum FileDescriptorLimit {
    /// Descriptors the process needs besides its connections: database connections, logs, the listener.
    static let reserve = 256

    /// Raises the soft limit of open files to fit `connections` (up to the hard limit). Returns the connections that
    /// fit in the limit when they do not all fit, nil when they do.
    static func raise(toFit connections: Int) -> Int? {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return nil }
        let needed = rlim_t(connections + reserve)
        if limit.rlim_cur < needed {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= needed ? nil : max(Int(limit.rlim_cur) - reserve, 0)
    }

    #if canImport(Glibc)
    private static let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
    #endif
}
