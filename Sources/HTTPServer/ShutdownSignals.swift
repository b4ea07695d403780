import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an action when the process receives one of some signals (SIGINT and SIGTERM by default), on a
/// dispatch queue of its own rather than in a signal handler, so the action may block and take locks.
/// While installed, the signals no longer end the process. `cancel()` (or releasing it) restores their
/// default behaviour.
public final class ShutdownSignals: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let signals: [Int32]

    /// - Parameters:
    ///   - signals: The signal numbers to catch.
    ///   - action: Called with the signal's number, once per delivery.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM], action: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        let queue = DispatchQueue(label: "geoledger.shutdown-signals")
        var installed: [any DispatchSourceSignal] = []
        for number in signals {
            // The default action would end the process before the source could see the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { action(number) }
            source.resume()
            installed.append(source)
        }
        sources = Mutex(installed)
    }

    deinit {
        cancel()
    }

    public func cancel() {
        let cancelled = sources.withLock { sources in
            defer { sources = [] }
            return sources
        }
        guard !cancelled.isEmpty else { return }
        for source in cancelled { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}

extension HTTPServer {
    /// Stops the server gracefully on SIGINT or SIGTERM. Keep the returned value for as long as that should hold.
    public func stopOnSignals(
        _ signals: [Int32] = [SIGINT, SIGTERM], gracePeriod: Duration = .seconds(10)
    ) -> ShutdownSignals {
        ShutdownSignals(signals) { [weak self] _ in self?.stop(gracePeriod: gracePeriod) }
    }
}
