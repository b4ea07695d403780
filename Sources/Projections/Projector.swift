import Foundation
import Postgres

/// Brings the read models up to date with a range of the log's positions.
///
/// One code path for both uses: after an append, in its transaction, over the positions just written; and in
/// `replay`, over the whole log into fresh tables. Each statement gives the same tables whatever order the events
/// arrived in and however the log is cut into ranges: history rows are keyed by position, and bindings are
/// recomputed from the terminal's whole stream. Current positions are read from the history by capture time
/// (``CurrentState``), so there is nothing to reorder.
///
/// Fixes and failures are read from `metadata` alone (see the ingest payload): one small JSON document per event.
public struct Projector: Sendable {
    /// The schema written: `projections`, or replay's fresh copy.
    let schema: String

    public static let live = Projector(schema: "projections")

    init(schema: String) {
        self.schema = schema
    }

    /// Projects the events with positions in `range`.
    public func project(_ range: ClosedRange<Int64>, on connection: Connection) throws {
        let bounds: [(any PostgresEncodable)?] = [range.lowerBound, range.upperBound]
        for statement in [insertFixes, insertFailures, insertVisits, updateBindings] {
            try connection.query(statement, bounds)
        }
    }

    /// `m` is the event's metadata parsed once (`OFFSET 0` keeps the planner from repeating the cast in every use).
    private func withMetadata(types: String) -> String {
        """
        FROM events e
        CROSS JOIN LATERAL (SELECT e.metadata::jsonb AS m OFFSET 0) j
        WHERE e.position BETWEEN $1 AND $2 AND e.type IN (\(types))
        """
    }

    private var insertFixes: String {
        """
        INSERT INTO \(schema).fixes
        SELECT e.position, e.event_id, e.type,
               split_part(e.stream, '-', 1), substr(e.stream, strpos(e.stream, '-') + 1),
               (m ->> 'capturedAt')::timestamptz,
               (m #>> '{fix,wgs84,lat}')::float8, (m #>> '{fix,wgs84,lon}')::float8,
               (m #>> '{fix,horizontalAccuracy}')::float8, m #>> '{fix,accuracyAuthorization}',
               m #>> '{fix,accuracy}', m #>> '{fix,provider}', m #>> '{fix,region}',
               (m #>> '{fix,nearBoundary}')::boolean, (m #>> '{fix,claimMismatch}')::boolean,
               m #>> '{fix,adcode}', m ->> 'app'
        \(withMetadata(types: "'MerchantAddressFixed', 'EnterpriseAddressFixed', 'TerminalBound', 'TerminalLocated', 'VisitRecorded'"))
        """
    }

    private var insertFailures: String {
        """
        INSERT INTO \(schema).failures
        SELECT e.position, e.event_id,
               split_part(e.stream, '-', 1), substr(e.stream, strpos(e.stream, '-') + 1),
               m #>> '{failure,provider}', m #>> '{failure,errorCode}', m #>> '{failure,category}',
               (m ->> 'capturedAt')::timestamptz, m ->> 'app'
        \(withMetadata(types: "'LocationFailed'"))
        """
    }

    private var insertVisits: String {
        """
        INSERT INTO \(schema).visits
        SELECT e.position, e.event_id, substr(e.stream, strpos(e.stream, '-') + 1),
               d."merchantId", d."visitorId", d.note, (e.metadata ->> 'capturedAt')::timestamptz
        FROM events e
        CROSS JOIN LATERAL json_to_record(e.data) AS d ("merchantId" text, "visitorId" text, note text)
        WHERE e.position BETWEEN $1 AND $2 AND e.type = 'VisitRecorded'
        """
    }

    /// The binding of every terminal bound or unbound in the range, recomputed from its whole stream: the last
    /// bind/unbind decides; "bound since" is the first bind after the last unbind (binding again to the same
    /// merchant, to re-locate it, does not restart it).
    private var updateBindings: String {
        """
        WITH touched AS (
            SELECT DISTINCT stream FROM events
            WHERE position BETWEEN $1 AND $2 AND type IN ('TerminalBound', 'TerminalUnbound')
        ), changes AS (
            SELECT e.stream, e.version, e.type, e.data ->> 'merchantId' AS merchant_id,
                   coalesce(e.metadata ->> 'capturedAt', e.metadata ->> 'receivedAt')::timestamptz AS at
            FROM touched t JOIN events e ON e.stream = t.stream
            WHERE e.type IN ('TerminalBound', 'TerminalUnbound')   -- served by events_terminal_bindings
        ), last_change AS (
            SELECT DISTINCT ON (stream) * FROM changes ORDER BY stream, version DESC
        ), last_unbind AS (
            SELECT stream, max(version) AS version FROM changes WHERE type = 'TerminalUnbound' GROUP BY stream
        ), since AS (
            SELECT c.stream, min(c.at) AS at
            FROM changes c LEFT JOIN last_unbind u ON u.stream = c.stream
            WHERE c.type = 'TerminalBound' AND c.version > coalesce(u.version, -1)
            GROUP BY c.stream
        )
        INSERT INTO \(schema).terminals AS cur (terminal_id, merchant_id, bound_since, last_merchant_id, binding_version, unbound_at)
        SELECT substr(l.stream, strpos(l.stream, '-') + 1),
               CASE WHEN l.type = 'TerminalBound' THEN l.merchant_id END,
               CASE WHEN l.type = 'TerminalBound' THEN s.at END,
               l.merchant_id, l.version,
               CASE WHEN l.type = 'TerminalUnbound' THEN l.at END
        FROM last_change l LEFT JOIN since s ON s.stream = l.stream
        ON CONFLICT (terminal_id) DO UPDATE SET
            merchant_id = excluded.merchant_id, bound_since = excluded.bound_since,
            last_merchant_id = excluded.last_merchant_id, binding_version = excluded.binding_version,
            unbound_at = excluded.unbound_at
        """
    }
}
