-- On Citus (the `citus` extension is in the database), the tables are distributed; on plain PostgreSQL nothing
-- changes but the function below, which then does nothing.
--
-- geoledger_distribute(table, column) distributes a table by a column: its primary and unique keys get the column
-- in front (Citus enforces a key only within a shard), and hash-distributed tables with a text column share one
-- co-location group, so that an entity's rows of every table are on the same node and joins on the entity's id run
-- there. With a NULL column the table becomes a single-shard table: all of it on one node, every query on it routed
-- there whole, and its triggers kept, on the shard as on the coordinator. A migration adding a table distributes it
-- with one call of this function.

CREATE FUNCTION geoledger_distribute(tab regclass, key text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    constraint_row record;
    workers int;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;
    IF key IS NULL THEN
        -- The log's triggers only refuse (they read nothing): safe on the shard, where Citus then creates them too.
        SET LOCAL citus.enable_unsafe_triggers = on;
        PERFORM create_distributed_table(tab, NULL);
        RETURN;
    END IF;
    FOR constraint_row IN
        SELECT c.conname, c.contype,
               (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
                FROM unnest(c.conkey) WITH ORDINALITY k (attnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns
        FROM pg_constraint c
        WHERE c.conrelid = tab AND c.contype IN ('p', 'u')
          AND NOT EXISTS (SELECT 1 FROM pg_attribute a
                          WHERE a.attrelid = c.conrelid AND a.attname = key AND a.attnum = ANY (c.conkey))
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', tab, constraint_row.conname);
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s (%I, %s)', tab, constraint_row.conname,
                       CASE constraint_row.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, key, constraint_row.columns);
    END LOOP;
    -- Four shards per worker: room to move shards onto workers added later (citus_rebalance_start).
    SELECT greatest(count(*), 1) * 4 INTO workers FROM pg_dist_node WHERE noderole = 'primary' AND shouldhaveshards AND isactive;
    PERFORM set_config('citus.shard_count', workers::text, true);
    PERFORM create_distributed_table(tab, key);
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;
    -- The log as one shard: positions are assigned and become visible in commit order on one node, as on
    -- PostgreSQL alone, which the feed's readers rely on.
    PERFORM geoledger_distribute('events', NULL);
    -- The projections by entity: an entity's fixes, failures, visit records and binding on one node.
    PERFORM geoledger_distribute('projections.fixes', 'entity_id');
    PERFORM geoledger_distribute('projections.failures', 'entity_id');
    PERFORM geoledger_distribute('projections.visits', 'visit_id');
    PERFORM geoledger_distribute('projections.terminals', 'terminal_id');
    -- Each merchant's and terminal's newest fixes, with the entity's other rows. The reports' daily counts stay on the
    -- coordinator, a few rows a day, written in the append's transaction there; the API's tokens too.
    PERFORM geoledger_distribute('projections.latest_fixes', 'entity_id');
    -- Queries computing distances run on the workers.
    PERFORM create_distributed_function('geo_distance_m(float8, float8, float8, float8)');
END
$$;
