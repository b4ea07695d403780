-- The buckets of accuracy_buckets keep one significant digit of the whole metres instead of two (7.5 -> 7, 37.4 -> 30,
-- 123.9 -> 100, 4567 -> 4000): some 9 buckets a tenfold range instead of 90, so an append upserts a quarter as many
-- rows. A percentile's value is read at its offset in its bucket from the fixes' index (0015), a few more index
-- entries further along: the buckets only say where to start.

CREATE OR REPLACE FUNCTION accuracy_bucket(value float8) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT floor(value)::bigint
           - floor(value)::bigint % (10 ^ greatest(length(floor(value)::bigint::text) - 1, 0))::bigint
$$;

-- The fixes stored so far, counted again in the new buckets.
DELETE FROM projections.accuracy_buckets;
INSERT INTO projections.accuracy_buckets
SELECT f.provider, f.platform, coalesce(f.app, ''), accuracy_bucket(f.horizontal_accuracy), count(*),
       count(*) FILTER (WHERE f.claim_mismatch)
FROM projections.fixes f GROUP BY 1, 2, 3, 4;
