import Foundation

/// The heads of the streams one writer has appended to, kept between its appends so that the next one need not
/// read them again from the log.
///
/// Safe only while nobody else writes in between: an append uses the cache when the log's last event, read under
/// the append lock, is still the one the cache saw last, and empties it otherwise. It learns only from appends
/// that committed, so a rolled-back append leaves it as it was, matching the log.
public final class StreamHeadCache {
    private var heads: [String: StreamHead] = [:]
    private var lastEvent: LastEvent?
    /// Past this many streams the cache starts again empty: memory stays bounded on any input.
    private let capacity: Int

    public init(capacity: Int = 500_000) {
        self.capacity = max(1, capacity)
    }

    /// The cached heads of `streams`, when `last` is the log's last event as this cache last saw it.
    func heads(of streams: Set<String>, whenLastEventIs last: LastEvent?) -> [String: StreamHead] {
        guard last == lastEvent else {
            heads.removeAll(keepingCapacity: true)
            lastEvent = last
            return [:]
        }
        var known: [String: StreamHead] = [:]
        known.reserveCapacity(streams.count)
        for stream in streams {
            if let head = heads[stream] { known[stream] = head }
        }
        return known
    }

    /// What a committed append left: the heads of its streams and the log's last event.
    func remember(_ appended: [String: StreamHead], lastEvent: LastEvent?) {
        if heads.count + appended.count > capacity { heads.removeAll(keepingCapacity: true) }
        heads.merge(appended) { _, new in new }
        self.lastEvent = lastEvent
    }
}

/// The log's last event, which tells whether anything was appended since it was read.
struct LastEvent: Sendable, Equatable {
    let position: Int64
    let hash: [UInt8]
}
