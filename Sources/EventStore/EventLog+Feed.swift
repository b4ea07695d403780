import Postgres

extension EventLog {
    /// Events after a global position, in position order, as far as their positions run on without a gap.
    ///
    /// Positions are assigned gap-free under the append lock, and a later batch takes its positions only once the
    /// batch before it has committed on every node (a Citus transaction keeps its locks until then). On one server,
    /// and with the log on one Citus node, they also become visible in position order. A log spread over several
    /// nodes makes a batch visible one node at a time, so a later position can show before an earlier one; a reader
    /// that took it would poll after it and never see the earlier one. So the page ends before the first position
    /// missing after `position`: the reader's committed watermark, found by the reader itself. Every event up to it
    /// has committed, nothing at or before it can still appear, and there is nothing for writers to advance or for
    /// anyone to repair after a crash. A position missing for good (an event removed behind the triggers' back)
    /// stops the feed there; `verify` names it.
    public func readAll(after position: Int64, limit: Int, on connection: Connection) throws -> [RecordedEvent] {
        let page = try connection.query(
            "SELECT \(Self.columns) FROM events WHERE position > $1 ORDER BY position LIMIT $2",
            [position, limit]
        ).map(Self.recordedEvent)
        return Self.gapFree(page, after: position, position: \.position)
    }

    /// The head of `page`, a page of the log in position order, whose positions follow `position` one by one.
    package static func gapFree<Event>(_ page: [Event], after position: Int64, position of: (Event) -> Int64) -> [Event] {
        var end = 0
        while end < page.count && of(page[end]) == position + Int64(end) + 1 { end += 1 }
        return Array(page.prefix(end))
    }
}
