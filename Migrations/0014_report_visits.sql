-- The visit-distance report reads each visit's fix from an index alone. A visit's fix is the fix of the visit's own
-- event: at the visit record's position, with the visit's id as its entity and the record's capture time. So the
-- report joins the two by position (and the id, which Citus needs to keep the join on one node) and takes the
-- capture time from the visit record; fixes_visits holds the rest, and the fixes' rows are not read at all.

-- On Citus, the function command below may not follow writes to the shards of `fixes` over several connections in
-- one transaction: this one writes them over one, as in 0011.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

DO $$
BEGIN
    EXECUTE 'DROP INDEX projections.fixes_visits';
    EXECUTE 'CREATE INDEX fixes_visits ON projections.fixes (position) INCLUDE (entity_id, lat, lon, provider, app)
             WHERE entity_kind = ''visit''';
END
$$;

-- As in 0009, with the fix read from fixes_visits and the capture time from the visit record.
CREATE OR REPLACE FUNCTION report_visit_distance(p_from timestamptz, p_to timestamptz, p_app text, p_provider text,
                                                 p_threshold float8)
RETURNS TABLE (visitor_id text, visit_id text, merchant_id text, distance float8, lat float8, lon float8,
               captured_at timestamptz, provider text, app text)
LANGUAGE plpgsql STABLE SET jit = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        WITH m AS MATERIALIZED (
            SELECT l.entity_id, l.lat, l.lon FROM projections.latest_fixes l WHERE l.entity_kind = 'merchant' AND l.quality = 'precise'
        )
        SELECT d.* FROM (
            SELECT v.visitor_id, v.visit_id, v.merchant_id, geo_distance_m(m.lat, m.lon, f.lat, f.lon) AS distance,
                   f.lat, f.lon, v.captured_at, f.provider, f.app
            FROM projections.visits v
            JOIN projections.fixes f ON f.position = v.position AND f.entity_id = v.visit_id AND f.entity_kind = 'visit'
            JOIN m ON m.entity_id = v.merchant_id
            WHERE (p_from IS NULL OR v.captured_at >= p_from) AND (p_to IS NULL OR v.captured_at < p_to)
              AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
        ) d
        WHERE d.distance > p_threshold
        ORDER BY d.visitor_id, d.distance DESC, d.visit_id;
END
$$;
