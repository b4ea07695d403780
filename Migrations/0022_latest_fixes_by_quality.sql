-- The reports that read every newest fix (terminal-drift, visit-distance and stale) read latest_fixes through an
-- index by quality and kind that holds the columns they show, from the index alone: each reads only its part (the
-- merchants' and the terminals' newest precise fixes, or every entity's newest fix), where a scan of the whole table
-- read every row of both qualities and all their columns. Current state still reads rows by key through the primary
-- key.

-- Through EXECUTE: Citus passes the text of the command on to the workers, which take one statement at a time.
DO $$
BEGIN
    EXECUTE 'CREATE INDEX latest_fixes_by_quality ON projections.latest_fixes (quality, entity_kind, entity_id)
             INCLUDE (captured_at, lat, lon, provider, app)';
END
$$;
