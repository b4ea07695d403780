import Foundation
import Synchronization

/// A one-line progress display on stderr, redrawn at most five times a second: count, rate and, when the total
/// is known, a bar and the time left. Updates may come from several threads.
public final class ProgressLine: Sendable {
    private struct State {
        var totalBytes: Int?
        var lastDrawn = Date.distantPast
    }

    private let state: Mutex<State>
    private let enabled: Bool
    private let started = Date()

    public init(totalBytes: Int?, enabled: Bool) {
        state = Mutex(State(totalBytes: totalBytes))
        self.enabled = enabled
    }

    public var elapsedText: String { String(format: "%.1f s", Date().timeIntervalSince(started)) }

    /// - Parameter totalBytes: the total, when it became known only now.
    public func update(count: Int, bytes: Int, totalBytes: Int? = nil) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            if let totalBytes { state.totalBytes = totalBytes }
            guard Date().timeIntervalSince(state.lastDrawn) >= 0.2 else { return nil }
            state.lastDrawn = Date()
            return render(count: count, bytes: bytes, totalBytes: state.totalBytes)
        }
        if let line { writeStandardError("\r\(line)\u{1B}[K") }
    }

    private func render(count: Int, bytes: Int, totalBytes: Int?) -> String {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        var line = "\(count) events  \(Int(Double(count) / elapsed))/s"
        if let totalBytes, totalBytes > 0 {
            let fraction = min(Double(bytes) / Double(totalBytes), 1)
            let filled = Int(fraction * 30)
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: 30 - filled)
            let left = fraction > 0 ? elapsed / fraction - elapsed : 0
            line += String(format: "  [%@] %3.0f%%  ETA %d:%02d", bar, fraction * 100, Int(left) / 60, Int(left) % 60)
        }
        return line
    }

    public func finish() {
        guard enabled else { return }
        writeStandardError("\r\u{1B}[K")
    }
}
