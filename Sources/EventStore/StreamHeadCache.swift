import Foundation

/// The heads of the streams one writer has appended to, kept between its appends so that the next one need not
/// read them again from the log.
///
/// Safe only while nobody else writes in between: an append uses the cache when the log's head, read under the
/// append lock, is still the one the cache saw last, and empties it otherwise. It learns only from appends
/// that committed, so a rolled-back append leaves it as it was, matching the log.
public final class StreamHeadCache {
    private var heads: [String: StreamHead] = [:]
    private var logHead: LogHead?
    /// Past this many streams the cache starts again empty: memory stays bounded on any input.
    private let capacity: Int

    public init(capacity: Int = 500_000) {
        self.capacity = max(1, capacity)
    }

    /// The cached heads of `streams`, when `logHead` is the log's head as this cache last saw it.
    func heads(of streams: Set<String>, whenHeadIs logHead: LogHead) -> [String: StreamHead] {
        guard logHead == self.logHead else {
            heads.removeAll(keepingCapacity: true)
            self.logHead = logHead
            return [:]
        }
        var known: [String: StreamHead] = [:]
        known.reserveCapacity(streams.count)
        for stream in streams {
            if let head = heads[stream] { known[stream] = head }
        }
        return known
    }

    /// What a committed append left: the heads of its streams and the log's head.
    func remember(_ appended: [(String, StreamHead)], head logHead: LogHead) {
        if heads.count + appended.count > capacity { heads.removeAll(keepingCapacity: true) }
        for (stream, head) in appended { heads[stream] = head }
        self.logHead = logHead
    }
}
