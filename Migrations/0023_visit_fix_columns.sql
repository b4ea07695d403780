-- The visit-distance report reads each visit record's position, provider and app from the record itself: the projector
-- writes them with the record, from the visit's own fix (the event's), as it writes that fix into the history. The
-- report then joins the visit records to the merchants' address positions alone, where it joined every record to its
-- fix in the history first (through fixes_visits, which a visit's page still reads). The records stored so far get
-- theirs from that fix here, once; `geoledger replay` writes them from the log.

-- On Citus, the function command below may not follow writes to the shards of `visits` over several connections in
-- one transaction: this one writes them over one, as in 0011.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

-- A column at a time, each through EXECUTE: Citus passes the text of the command on to the workers, which take one
-- statement at a time, and refuses one ALTER TABLE adding several columns to a distributed table.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE projections.visits ADD COLUMN lat float8';
    EXECUTE 'ALTER TABLE projections.visits ADD COLUMN lon float8';
    EXECUTE 'ALTER TABLE projections.visits ADD COLUMN provider text';
    EXECUTE 'ALTER TABLE projections.visits ADD COLUMN app text';
END
$$;

UPDATE projections.visits v SET lat = f.lat, lon = f.lon, provider = f.provider, app = f.app
FROM projections.fixes f
WHERE f.position = v.position AND f.entity_id = v.visit_id AND f.entity_kind = 'visit';

-- As in 0014, with the fix's position, provider and app from the visit record.
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
            SELECT v.visitor_id, v.visit_id, v.merchant_id, geo_distance_m(m.lat, m.lon, v.lat, v.lon) AS distance,
                   v.lat, v.lon, v.captured_at, v.provider, v.app
            FROM projections.visits v
            JOIN m ON m.entity_id = v.merchant_id
            WHERE (p_from IS NULL OR v.captured_at >= p_from) AND (p_to IS NULL OR v.captured_at < p_to)
              AND (p_app IS NULL OR v.app = p_app) AND (p_provider IS NULL OR v.provider = p_provider)
        ) d
        WHERE d.distance > p_threshold
        ORDER BY d.visitor_id, d.distance DESC, d.visit_id;
END
$$;
