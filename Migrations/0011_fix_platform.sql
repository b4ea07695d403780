-- The platform of each fix ('ios', 'android' or 'unknown'), computed by the projector by the same rule as a
-- failure's (`actor.platform` when sent, else `actor.os`): the reports read it instead of deriving their own from
-- `os`. The fixes projected before this column get the platform their `os` gave the reports until now; `geoledger
-- replay` recomputes it from the log, where an explicit `actor.platform` wins.

-- On Citus, the function commands below may not follow writes to the shards of `fixes` over several connections in
-- one transaction: this one writes them over one. (On PostgreSQL alone the setting is an unused placeholder.)
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

ALTER TABLE projections.fixes ADD COLUMN platform text NOT NULL DEFAULT 'unknown';
UPDATE projections.fixes SET platform = report_platform(os) WHERE report_platform(os) <> 'unknown';
DROP FUNCTION report_platform(text);

-- The indexes by capture time, with the platform for the os. Each statement through EXECUTE: Citus passes the text
-- of an index's command on to the workers, which take one statement at a time.
DO $$
BEGIN
    EXECUTE 'DROP INDEX projections.fixes_captured';
    EXECUTE 'CREATE INDEX fixes_captured ON projections.fixes (captured_at)
             INCLUDE (provider, app, platform, accuracy, accuracy_authorization, claim_mismatch, horizontal_accuracy)';
    EXECUTE 'DROP INDEX projections.failures_captured';
    EXECUTE 'CREATE INDEX failures_captured ON projections.failures (captured_at) INCLUDE (provider, app, platform, category)';
END
$$;

-- Summary: fixes per day of capture (UTC), provider, app, accuracy flag, authorisation and claim mismatch (no
-- longer by os: no report reads it). Kept and rebuilt like daily_events.
DROP TABLE projections.fix_days;
CREATE TABLE projections.fix_days (
    day                    date    NOT NULL,
    provider               text    NOT NULL,
    app                    text    NOT NULL,
    accuracy               text    NOT NULL,
    accuracy_authorization text    NOT NULL,
    claim_mismatch         boolean NOT NULL,
    fixes                  bigint  NOT NULL,
    PRIMARY KEY (day, provider, app, accuracy, accuracy_authorization, claim_mismatch)
);

-- The bucket of a horizontal accuracy in accuracy_buckets: its whole metres kept to two significant digits, as the
-- bucket's lower bound (7.5 -> 7, 37.4 -> 37, 123.9 -> 120, 4567 -> 4500). Some 90 buckets a tenfold range.
CREATE FUNCTION accuracy_bucket(value float8) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT floor(value)::bigint
           - floor(value)::bigint % (10 ^ greatest(length(floor(value)::bigint::text) - 2, 0))::bigint
$$;

-- Summaries for the exact median and p90 horizontal accuracy per provider and platform over the whole history:
-- accuracy_buckets counts the fixes (and those whose claim mismatched) per provider, platform, app ('' where none)
-- and bucket, accuracy_values per provider, platform, bucket, horizontal accuracy as stored and app. A percentile's
-- rank is found in the buckets' running count, then its value among the few distinct values of its bucket. Kept
-- and rebuilt like daily_events.
DROP TABLE projections.accuracy_values;
CREATE TABLE projections.accuracy_buckets (
    provider   text   NOT NULL,
    platform   text   NOT NULL,
    app        text   NOT NULL,
    bucket     bigint NOT NULL,
    fixes      bigint NOT NULL,
    mismatches bigint NOT NULL,
    PRIMARY KEY (provider, platform, app, bucket)
);
CREATE TABLE projections.accuracy_values (
    provider            text   NOT NULL,
    platform            text   NOT NULL,
    bucket              bigint NOT NULL,
    horizontal_accuracy float8 NOT NULL,
    app                 text   NOT NULL,
    fixes               bigint NOT NULL,
    PRIMARY KEY (provider, platform, bucket, horizontal_accuracy, app)
);

-- The fixes stored so far, summarised once.
INSERT INTO projections.fix_days
SELECT (f.captured_at AT TIME ZONE 'UTC')::date, f.provider, coalesce(f.app, ''), f.accuracy, f.accuracy_authorization,
       f.claim_mismatch, count(*)
FROM projections.fixes f GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO projections.accuracy_buckets
SELECT f.provider, f.platform, coalesce(f.app, ''), accuracy_bucket(f.horizontal_accuracy), count(*),
       count(*) FILTER (WHERE f.claim_mismatch)
FROM projections.fixes f GROUP BY 1, 2, 3, 4;
INSERT INTO projections.accuracy_values
SELECT f.provider, f.platform, accuracy_bucket(f.horizontal_accuracy), f.horizontal_accuracy, coalesce(f.app, ''), count(*)
FROM projections.fixes f GROUP BY 1, 2, 3, 4, 5;

-- As in 0009, without the os.
DROP FUNCTION report_fix_counts(timestamptz, timestamptz);
CREATE FUNCTION report_fix_counts(p_from timestamptz, p_to timestamptz)
RETURNS TABLE (day date, provider text, app text, accuracy text, accuracy_authorization text, claim_mismatch boolean,
               fixes bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT d.day, d.provider, nullif(d.app, ''), d.accuracy, d.accuracy_authorization, d.claim_mismatch, d.fixes
        FROM projections.fix_days d
        WHERE (p_from IS NULL OR d.day >= report_day_after(p_from)) AND (p_to IS NULL OR d.day < report_day_of(p_to))
        UNION ALL
        SELECT (f.captured_at AT TIME ZONE 'UTC')::date, f.provider, f.app, f.accuracy, f.accuracy_authorization,
               f.claim_mismatch, count(*)
        FROM projections.fixes f
        WHERE ((p_from IS NOT NULL AND f.captured_at >= p_from AND f.captured_at < report_day_after(p_from)::timestamp AT TIME ZONE 'UTC')
               OR (p_to IS NOT NULL AND f.captured_at >= report_day_of(p_to)::timestamp AT TIME ZONE 'UTC' AND f.captured_at < p_to))
          AND (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
        GROUP BY 1, 2, 3, 4, 5, 6;
END
$$;

-- Per provider and platform, for captures in [p_from, p_to): fixes, the share whose claim mismatched, and the
-- median and 90th percentile of the horizontal accuracy in metres, percentile_cont's: for n fixes, the values of
-- ranks floor(p * (n - 1)) and ceil(p * (n - 1)) (from 0, in order of value), interpolated. Over the whole history
-- from accuracy_buckets and accuracy_values; over a time range from the fix history.
CREATE FUNCTION report_fix_stats(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, platform text, fixes bigint, mismatch_rate float8, median_accuracy float8,
               p90_accuracy float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    IF p_from IS NULL AND p_to IS NULL THEN
        RETURN QUERY
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
            ), ranks AS (
                -- Each rank wanted, with the bucket that holds it and the count of the buckets below.
                SELECT r.provider, r.platform, r.total, r.mismatches, q.name, q.k, r.bucket, r.below
                FROM running r
                CROSS JOIN LATERAL (VALUES ('median_low', floor(0.5 * (r.total - 1))), ('median_high', ceil(0.5 * (r.total - 1))),
                                           ('p90_low', floor(0.9 * (r.total - 1))), ('p90_high', ceil(0.9 * (r.total - 1)))) q(name, k)
                WHERE q.k >= r.below AND q.k < r.below + r.n
            ), values_at AS (
                -- The k-th value is the first of its bucket whose running count, after the buckets below, exceeds k.
                SELECT k.provider, k.platform, k.total, k.mismatches, k.name, (
                    SELECT c.value FROM (
                        SELECT v.horizontal_accuracy AS value,
                               sum(sum(v.fixes)) OVER (ORDER BY v.horizontal_accuracy) AS upto
                        FROM projections.accuracy_values v
                        WHERE v.provider = k.provider AND v.platform = k.platform AND v.bucket = k.bucket
                          AND (p_app IS NULL OR v.app = p_app)
                        GROUP BY v.horizontal_accuracy
                    ) c
                    WHERE k.below + c.upto > k.k
                    ORDER BY c.value LIMIT 1) AS value
                FROM ranks k
            ), pivoted AS (
                SELECT provider, platform, max(total) AS total, max(mismatches) AS mismatches,
                       min(value) FILTER (WHERE name = 'median_low') AS median_low,
                       min(value) FILTER (WHERE name = 'median_high') AS median_high,
                       min(value) FILTER (WHERE name = 'p90_low') AS p90_low,
                       min(value) FILTER (WHERE name = 'p90_high') AS p90_high
                FROM values_at GROUP BY 1, 2
            )
            SELECT provider, platform, total::bigint, mismatches::float8 / total::float8,
                   median_low + (median_high - median_low) * (0.5 * (total - 1) - floor(0.5 * (total - 1)))::float8,
                   p90_low + (p90_high - p90_low) * (0.9 * (total - 1) - floor(0.9 * (total - 1)))::float8
            FROM pivoted;
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

-- As in 0009, with the fixes' figures from report_fix_stats and the failures' platform as stored.
CREATE OR REPLACE FUNCTION report_providers(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, platform text, fixes bigint, failures bigint, failures_by_category text,
               median_accuracy float8, p90_accuracy float8, mismatch_rate float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        WITH failure_counts AS (
            SELECT l.provider, l.platform, l.category, count(*) AS failures
            FROM projections.failures l
            WHERE (p_from IS NULL OR l.captured_at >= p_from) AND (p_to IS NULL OR l.captured_at < p_to)
              AND (p_app IS NULL OR l.app = p_app) AND (p_provider IS NULL OR l.provider = p_provider)
            GROUP BY 1, 2, 3
        ), failure_stats AS (
            SELECT provider, platform, sum(failures)::bigint AS failures,
                   string_agg(category || '=' || failures, ', ' ORDER BY category) AS failures_by_category
            FROM failure_counts GROUP BY 1, 2
        )
        SELECT coalesce(s.provider, c.provider), coalesce(s.platform, c.platform), coalesce(s.fixes, 0),
               coalesce(c.failures, 0), c.failures_by_category, s.median_accuracy, s.p90_accuracy, s.mismatch_rate
        FROM report_fix_stats(p_from, p_to, p_app, p_provider) s
        FULL JOIN failure_stats c ON c.provider = s.provider AND c.platform = s.platform
        ORDER BY 1, 2;
END
$$;

-- No JIT compilation for the reports: their queries read summaries and indexes, and the planner's estimates (of a
-- subquery run per group, a filter per row) pass the JIT thresholds where compiling costs far more than it saves,
-- a second on a million events. A function's setting holds for the statements inside it.
ALTER FUNCTION report_region_mismatch(timestamptz, timestamptz, text, text) SET jit = off;
ALTER FUNCTION report_accuracy(timestamptz, timestamptz, text, text) SET jit = off;
ALTER FUNCTION report_providers(timestamptz, timestamptz, text, text) SET jit = off;
ALTER FUNCTION report_terminal_drift(timestamptz, timestamptz, text, text, float8) SET jit = off;
ALTER FUNCTION report_visit_distance(timestamptz, timestamptz, text, text, float8) SET jit = off;
ALTER FUNCTION report_outside_region(timestamptz, timestamptz, text, text) SET jit = off;
ALTER FUNCTION report_stale(timestamptz, text, text, integer) SET jit = off;
ALTER FUNCTION report_daily(timestamptz, timestamptz, text, text) SET jit = off;
