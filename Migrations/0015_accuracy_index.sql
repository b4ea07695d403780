-- The exact percentiles of the horizontal accuracy over the whole history read the fix history through an index by
-- provider, platform and value, instead of a summary of their own: accuracy_values held almost a row per fix (values
-- are rarely shared), so each append upserted nearly one row per fix into it, where one index entry per fix serves
-- the same query. A percentile's bucket and its rank in the bucket still come from accuracy_buckets; its value is
-- then the fix at that offset in the index from the bucket's lower bound (every value of a lower bucket is below it).

-- On Citus, the function commands below may not follow writes to the shards of `fixes` over several connections in
-- one transaction: this one writes them over one, as in 0011.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

DROP TABLE projections.accuracy_values;

DO $$
BEGIN
    EXECUTE 'CREATE INDEX fixes_accuracy ON projections.fixes (provider, platform, horizontal_accuracy) INCLUDE (app)';
END
$$;

-- As in 0011, the whole history's values read from fixes_accuracy: one statement per percentile's rank, each a range of
-- the index from its offset (on Citus, a query of its own over the shards, with its limit and offset).
CREATE OR REPLACE FUNCTION report_fix_stats(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, platform text, fixes bigint, mismatch_rate float8, median_accuracy float8,
               p90_accuracy float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    g record;
    value_at float8;
    v float8[];
BEGIN
    IF p_from IS NULL AND p_to IS NULL THEN
        -- Per provider and platform, the bucket holding each rank wanted (median low and high, p90 low and high, in
        -- that order) and the rank's offset among the values from the bucket's lower bound on.
        FOR g IN
            WITH buckets AS (
                SELECT b.provider, b.platform, b.bucket, sum(b.fixes) AS n, sum(b.mismatches) AS mismatches
                FROM projections.accuracy_buckets b
                WHERE (p_app IS NULL OR b.app = p_app) AND (p_provider IS NULL OR b.provider = p_provider)
                GROUP BY 1, 2, 3
            ), running AS (
                SELECT provider, platform, bucket, n,
                       sum(n) OVER (PARTITION BY provider, platform ORDER BY bucket) - n AS below,
                       sum(n) OVER (PARTITION BY provider, platform) AS total,
                       sum(mismatches) OVER (PARTITION BY provider, platform) AS mismatches
                FROM buckets
            )
            SELECT r.provider, r.platform, max(r.total) AS total, max(r.mismatches) AS mismatches,
                   array_agg(r.bucket ORDER BY q.i) AS buckets, array_agg((q.k - r.below)::bigint ORDER BY q.i) AS offsets
            FROM running r
            CROSS JOIN LATERAL (VALUES (1, floor(0.5 * (r.total - 1))), (2, ceil(0.5 * (r.total - 1))),
                                       (3, floor(0.9 * (r.total - 1))), (4, ceil(0.9 * (r.total - 1)))) q(i, k)
            WHERE q.k >= r.below AND q.k < r.below + r.n
            GROUP BY 1, 2
        LOOP
            FOR i IN 1..4 LOOP
                SELECT f.horizontal_accuracy INTO value_at FROM projections.fixes f
                WHERE f.provider = g.provider AND f.platform = g.platform
                  AND f.horizontal_accuracy >= g.buckets[i] AND (p_app IS NULL OR coalesce(f.app, '') = p_app)
                ORDER BY f.horizontal_accuracy OFFSET g.offsets[i] LIMIT 1;
                v[i] := value_at;
            END LOOP;
            provider := g.provider;
            platform := g.platform;
            fixes := g.total::bigint;
            mismatch_rate := g.mismatches::float8 / g.total::float8;
            median_accuracy := v[1] + (v[2] - v[1]) * (0.5 * (g.total - 1) - floor(0.5 * (g.total - 1)))::float8;
            p90_accuracy := v[3] + (v[4] - v[3]) * (0.9 * (g.total - 1) - floor(0.9 * (g.total - 1)))::float8;
            RETURN NEXT;
        END LOOP;
    ELSE
        RETURN QUERY
            WITH values_counted AS (
                SELECT f.provider, f.platform, f.horizontal_accuracy AS value, count(*) AS n,
                       count(*) FILTER (WHERE f.claim_mismatch) AS mismatches
                FROM projections.fixes f
                WHERE (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
                  AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
                GROUP BY 1, 2, 3
            ), running AS (
                SELECT provider, platform, value, mismatches,
                       sum(n) OVER (PARTITION BY provider, platform ORDER BY value) AS upto,
                       sum(n) OVER (PARTITION BY provider, platform) AS total
                FROM values_counted
            ), ranks AS (
                -- The k-th value (from 0) is the first whose running count exceeds k.
                SELECT provider, platform, max(total) AS total, sum(mismatches) AS mismatches,
                       min(value) FILTER (WHERE upto > floor(0.5 * (total - 1))) AS median_low,
                       min(value) FILTER (WHERE upto > ceil(0.5 * (total - 1))) AS median_high,
                       min(value) FILTER (WHERE upto > floor(0.9 * (total - 1))) AS p90_low,
                       min(value) FILTER (WHERE upto > ceil(0.9 * (total - 1))) AS p90_high
                FROM running GROUP BY 1, 2
            )
            SELECT provider, platform, total::bigint, mismatches::float8 / total::float8,
                   median_low + (median_high - median_low) * (0.5 * (total - 1) - floor(0.5 * (total - 1)))::float8,
                   p90_low + (p90_high - p90_low) * (0.9 * (total - 1) - floor(0.9 * (total - 1)))::float8
            FROM ranks;
    END IF;
END
$$;
