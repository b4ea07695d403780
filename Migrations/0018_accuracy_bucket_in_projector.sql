-- The projector counts each fix into its bucket of accuracy_buckets itself (Projector.accuracyBucket, the same rule:
-- whole metres kept to one significant digit, 0016's), and sends a row per bucket instead of one per horizontal
-- accuracy: values are rarely shared, so the server unnested, bucketed and grouped about four rows per bucket row it
-- kept. Nothing calls the function now; migrations 0011 and 0016 used it to count the fixes stored then.
DROP FUNCTION accuracy_bucket(float8);
