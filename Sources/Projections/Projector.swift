import Foundation
import Postgres

/// Brings the read models up to date with a range of the log's positions.
///
/// One code path for both uses: after an append, in its transaction, over the positions just written; and in
/// `replay`, over the whole log into fresh tables. Every statement gives the same tables whatever order the
/// events arrived in and however the log is cut into ranges: current positions keep the latest fix by
/// (capture time, event id), and bindings are recomputed from the terminal's whole stream.
public struct Projector: Sendable {
    /// The schema holding the tables written: `projections`, or replay's fresh copy.
    let schema: String

    public static let live = Projector(schema: "projections")

    init(schema: String) {
        self.schema = schema
    }

    /// Projects the events with positions in `range`.
    public func project(_ range: ClosedRange<Int64>, on connection: Connection) throws {
        let bounds: [(any PostgresEncodable)?] = [range.lowerBound, range.upperBound]
        for statement in statements {
            try connection.query(statement, bounds)
        }
    }

    private var statements: [String] {
        [insertFixes, insertFailures, updateLatestAddress, updatePreciseAddress, updateTerminalFix, updateBindings, updateVisits]
    }

    /// The events in the range with their JSON parsed once (`OFFSET 0` keeps the planner from inlining the casts
    /// into every use): `d` the submission, `m` what the server added, `f` the fix, `a` its assessment.
    private func parsedEvents(where condition: String) -> String {
        """
        FROM events e
        CROSS JOIN LATERAL (
            SELECT d, m, d -> 'fix' AS f, m -> 'fix' AS a
            FROM (SELECT e.data::jsonb AS d, e.metadata::jsonb AS m OFFSET 0) parsed OFFSET 0) j
        WHERE e.position BETWEEN $1 AND $2 AND \(condition)
        """
    }

    private var insertFixes: String {
        """
        INSERT INTO \(schema).fixes
        SELECT e.position, e.event_id, e.type,
               split_part(e.stream, '-', 1), substr(e.stream, strpos(e.stream, '-') + 1),
               d ->> 'merchantId', d ->> 'purpose',
               (m ->> 'capturedAt')::timestamptz, (m ->> 'receivedAt')::timestamptz,
               (a #>> '{wgs84,lat}')::float8, (a #>> '{wgs84,lon}')::float8,
               (a #>> '{gcj02,lat}')::float8, (a #>> '{gcj02,lon}')::float8,
               a ->> 'datum', (a ->> 'datumInferred')::boolean,
               (f ->> 'horizontalAccuracy')::float8, coalesce(f ->> 'accuracyAuthorization', 'unknown'),
               a ->> 'accuracy', f ->> 'provider',
               a ->> 'region', (a ->> 'nearBoundary')::boolean, (a ->> 'inRegion')::boolean,
               (f ->> 'claimedInRegion')::boolean, (a ->> 'claimMismatch')::boolean,
               ARRAY(SELECT jsonb_array_elements_text(a -> 'flags')),
               f #>> '{address,province}', f #>> '{address,city}', f #>> '{address,district}',
               f #>> '{address,adcode}', f #>> '{address,formatted}',
               d #>> '{actor,app}', d #>> '{actor,appVersion}', d #>> '{actor,userId}', d #>> '{actor,deviceId}'
        \(parsedEvents(where: "e.type <> 'TerminalUnbound' AND e.type <> 'LocationFailed'"))
        """
    }

    private var insertFailures: String {
        """
        INSERT INTO \(schema).failures
        SELECT e.position, e.event_id,
               split_part(e.stream, '-', 1), substr(e.stream, strpos(e.stream, '-') + 1),
               d ->> 'purpose', d ->> 'provider', d ->> 'errorCode', m #>> '{failure,category}', d ->> 'errorMessage',
               (m ->> 'capturedAt')::timestamptz, (m ->> 'receivedAt')::timestamptz,
               d #>> '{actor,app}', d #>> '{actor,appVersion}', d #>> '{actor,userId}', d #>> '{actor,deviceId}'
        \(parsedEvents(where: "e.type = 'LocationFailed'"))
        """
    }

    /// The newest fix per entity among `types` in the range, newest first by (capture time, event id).
    private func newestFixes(_ types: String, filter: String = "") -> String {
        """
        SELECT DISTINCT ON (entity_kind, entity_id) *
        FROM \(schema).fixes
        WHERE position BETWEEN $1 AND $2 AND event_type IN (\(types)) \(filter)
        ORDER BY entity_kind, entity_id, captured_at DESC, event_id DESC
        """
    }

    private var updateLatestAddress: String {
        """
        INSERT INTO \(schema).address_positions AS cur (
            entity_kind, entity_id, latest_position, latest_event_id, latest_captured_at, latest_lat, latest_lon,
            latest_accuracy, latest_horizontal_accuracy, latest_provider, latest_region)
        SELECT entity_kind, entity_id, position, event_id, captured_at, lat, lon,
               accuracy, horizontal_accuracy, provider, region
        FROM (\(newestFixes("'MerchantAddressFixed', 'EnterpriseAddressFixed'"))) n
        ON CONFLICT (entity_kind, entity_id) DO UPDATE SET
            latest_position = excluded.latest_position, latest_event_id = excluded.latest_event_id,
            latest_captured_at = excluded.latest_captured_at, latest_lat = excluded.latest_lat,
            latest_lon = excluded.latest_lon, latest_accuracy = excluded.latest_accuracy,
            latest_horizontal_accuracy = excluded.latest_horizontal_accuracy,
            latest_provider = excluded.latest_provider, latest_region = excluded.latest_region
        WHERE (excluded.latest_captured_at, excluded.latest_event_id) > (cur.latest_captured_at, cur.latest_event_id)
        """
    }

    private var updatePreciseAddress: String {
        """
        UPDATE \(schema).address_positions AS cur SET
            precise_position = n.position, precise_event_id = n.event_id, precise_captured_at = n.captured_at,
            precise_lat = n.lat, precise_lon = n.lon, precise_horizontal_accuracy = n.horizontal_accuracy,
            precise_provider = n.provider, precise_region = n.region
        FROM (\(newestFixes("'MerchantAddressFixed', 'EnterpriseAddressFixed'", filter: "AND accuracy = 'precise'"))) n
        WHERE cur.entity_kind = n.entity_kind AND cur.entity_id = n.entity_id
          AND (cur.precise_captured_at IS NULL
               OR (n.captured_at, n.event_id) > (cur.precise_captured_at, cur.precise_event_id))
        """
    }

    private var updateTerminalFix: String {
        """
        INSERT INTO \(schema).terminals AS cur (
            terminal_id, fix_position, fix_event_id, fix_captured_at, fix_lat, fix_lon, fix_accuracy,
            fix_horizontal_accuracy, fix_provider, fix_region)
        SELECT entity_id, position, event_id, captured_at, lat, lon, accuracy, horizontal_accuracy, provider, region
        FROM (\(newestFixes("'TerminalBound', 'TerminalLocated'"))) n
        ON CONFLICT (terminal_id) DO UPDATE SET
            fix_position = excluded.fix_position, fix_event_id = excluded.fix_event_id,
            fix_captured_at = excluded.fix_captured_at, fix_lat = excluded.fix_lat, fix_lon = excluded.fix_lon,
            fix_accuracy = excluded.fix_accuracy, fix_horizontal_accuracy = excluded.fix_horizontal_accuracy,
            fix_provider = excluded.fix_provider, fix_region = excluded.fix_region
        WHERE cur.fix_captured_at IS NULL
           OR (excluded.fix_captured_at, excluded.fix_event_id) > (cur.fix_captured_at, cur.fix_event_id)
        """
    }

    /// The binding of every terminal bound or unbound in the range, recomputed from its whole stream: the last
    /// bind/unbind decides; "bound since" is the first bind after the last unbind (re-binding to the same merchant,
    /// to re-locate it, does not restart it).
    private var updateBindings: String {
        """
        WITH touched AS (
            SELECT DISTINCT stream FROM events
            WHERE position BETWEEN $1 AND $2 AND type IN ('TerminalBound', 'TerminalUnbound')
        ), changes AS (
            SELECT e.stream, e.version, e.type, e.data ->> 'merchantId' AS merchant_id,
                   coalesce(e.metadata ->> 'capturedAt', e.metadata ->> 'receivedAt')::timestamptz AS at
            FROM touched t JOIN events e ON e.stream = t.stream
            WHERE e.type IN ('TerminalBound', 'TerminalUnbound')
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

    private var updateVisits: String {
        """
        INSERT INTO \(schema).visits AS cur
        SELECT DISTINCT ON (n.entity_id) n.entity_id, n.merchant_id, e.data ->> 'visitorId', e.data ->> 'note',
               n.position, n.event_id, n.captured_at, n.lat, n.lon, n.accuracy, n.horizontal_accuracy, n.provider, n.region
        FROM \(schema).fixes n JOIN events e ON e.position = n.position
        WHERE n.position BETWEEN $1 AND $2 AND n.event_type = 'VisitRecorded'
        ORDER BY n.entity_id, n.captured_at DESC, n.event_id DESC
        ON CONFLICT (visit_id) DO UPDATE SET
            merchant_id = excluded.merchant_id, visitor_id = excluded.visitor_id, note = excluded.note,
            position = excluded.position, event_id = excluded.event_id, captured_at = excluded.captured_at,
            lat = excluded.lat, lon = excluded.lon, accuracy = excluded.accuracy,
            horizontal_accuracy = excluded.horizontal_accuracy, provider = excluded.provider, region = excluded.region
        WHERE (excluded.captured_at, excluded.event_id) > (cur.captured_at, cur.event_id)
        """
    }
}
