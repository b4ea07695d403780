import Foundation

/// A one-line progress display on stderr, redrawn at most five times a second: count, rate and, when the total
/// is known, a bar and the time left. Updates may come from several threads.
final class ProgressLine: @unchecked Sendable {  // its state is guarded by `lock`
    private let lock = NSLock()
    private var totalBytes: Int?
    private let enabled: Bool
    private let started = Date()
    private var lastDrawn = Date.distantPast

    init(totalBytes: Int?, enabled: Bool) {
        self.totalBytes = totalBytes
        self.enabled = enabled
    }

    var elapsedText: String { String(format: "%.1f s", Date().timeIntervalSince(started)) }

    /// - Parameter totalBytes: the total, when it became known only now.
    func update(count: Int, bytes: Int, totalBytes: Int? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if let totalBytes { self.totalBytes = totalBytes }
        guard enabled, Date().timeIntervalSince(lastDrawn) >= 0.2 else { return }
        lastDrawn = Date()
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        var line = "\(count) events  \(Int(Double(count) / elapsed))/s"
        if let totalBytes, totalBytes > 0 {
            let fraction = min(Double(bytes) / Double(totalBytes), 1)
            let filled = Int(fraction * 30)
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: 30 - filled)
            let left = fraction > 0 ? elapsed / fraction - elapsed : 0
            line += String(format: "  [%@] %3.0f%%  ETA %d:%02d", bar, fraction * 100, Int(left) / 60, Int(left) % 60)
        }
        FileHandle.standardError.write(Data("\r\(line)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
