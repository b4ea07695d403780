-- Reports: `geoledger report NAME` calls one function per report. Each reads the projections, through the indexes
-- and summary tables below, never the log. The functions live outside the `projections` schema and name its tables
-- in their bodies, which are planned at each call: a replay's swapped-in schema serves them at once. They are
-- PL/pgSQL, whose queries Citus distributes with their parameters (it refuses those of SQL functions); a column
-- wins over a result column of the same name.

-- The sender's operating system as sent (`actor.os`), for the reports by platform. The rows stored so far get theirs
-- from the log here, once.
ALTER TABLE projections.fixes ADD COLUMN os text;
ALTER TABLE projections.failures ADD COLUMN os text;
UPDATE projections.fixes f SET os = e.data -> 'actor' ->> 'os' FROM events e WHERE e.position = f.position;
UPDATE projections.failures f SET os = e.data -> 'actor' ->> 'os' FROM events e WHERE e.position = f.position;

-- The reports over a time range read fixes and failures by capture time, from the index alone.
CREATE INDEX fixes_captured ON projections.fixes (captured_at)
    INCLUDE (provider, app, os, accuracy, accuracy_authorization, claim_mismatch, horizontal_accuracy);
CREATE INDEX fixes_claim_mismatch ON projections.fixes (captured_at) INCLUDE (provider, app, region) WHERE claim_mismatch;
CREATE INDEX failures_captured ON projections.failures (captured_at) INCLUDE (provider, app, os, category);

-- Summary: each merchant's and terminal's newest fix by (captured_at, event_id), of any quality ('any') and the
-- newest precise one ('precise'); a merchant's are its address fixes. The same rows as reading the fix history
-- through fixes_entity; kept by the projector in the append's transaction (a newer fix replaces the row, an older
-- one leaves it), rebuilt by replay.
CREATE TABLE projections.latest_fixes (
    entity_kind         text        NOT NULL,       -- merchant, terminal
    entity_id           text        NOT NULL,
    quality             text        NOT NULL,       -- any, precise
    position            bigint      NOT NULL,
    event_id            uuid        NOT NULL,
    captured_at         timestamptz NOT NULL,
    lat                 float8      NOT NULL,       -- WGS-84
    lon                 float8      NOT NULL,
    horizontal_accuracy float8      NOT NULL,
    accuracy            text        NOT NULL,
    provider            text        NOT NULL,
    region              text        NOT NULL,
    near_boundary       boolean     NOT NULL,
    app                 text,
    PRIMARY KEY (entity_kind, entity_id, quality)
);

-- Summary: events appended per day of receipt (UTC), type, app and provider ('' where the event has none); kept by
-- the projector in the append's transaction, rebuilt by replay. Rejected items are not stored, so not counted.
CREATE TABLE projections.daily_events (
    day        date   NOT NULL,
    event_type text   NOT NULL,
    app        text   NOT NULL,
    provider   text   NOT NULL,
    events     bigint NOT NULL,
    PRIMARY KEY (day, event_type, app, provider)
);

-- Summary: fixes per day of capture (UTC), provider, app, os ('' where none), accuracy flag, authorisation and
-- claim mismatch. Kept and rebuilt like daily_events.
CREATE TABLE projections.fix_days (
    day                    date    NOT NULL,
    provider               text    NOT NULL,
    app                    text    NOT NULL,
    os                     text    NOT NULL,
    accuracy               text    NOT NULL,
    accuracy_authorization text    NOT NULL,
    claim_mismatch         boolean NOT NULL,
    fixes                  bigint  NOT NULL,
    PRIMARY KEY (day, provider, app, os, accuracy, accuracy_authorization, claim_mismatch)
);

-- Summary: fixes per provider, app, os ('' where none) and horizontal accuracy, from which the providers report
-- takes exact percentiles over the whole history. Kept and rebuilt like daily_events.
CREATE TABLE projections.accuracy_values (
    provider            text   NOT NULL,
    app                 text   NOT NULL,
    os                  text   NOT NULL,
    horizontal_accuracy float8 NOT NULL,
    fixes               bigint NOT NULL,
    PRIMARY KEY (provider, app, os, horizontal_accuracy)
);

-- A visit's fix, read by its position with the visit's record.
CREATE INDEX fixes_visits ON projections.fixes (position) INCLUDE (lat, lon, provider, app) WHERE entity_kind = 'visit';

-- The events stored so far, summarised once.
INSERT INTO projections.daily_events
SELECT (e.metadata ->> 'receivedAt')::timestamptz AT TIME ZONE 'UTC', e.type, coalesce(e.metadata ->> 'app', ''),
       coalesce(e.metadata -> 'fix' ->> 'provider', e.metadata -> 'failure' ->> 'provider', ''), count(*)
FROM events e WHERE e.metadata ->> 'receivedAt' IS NOT NULL GROUP BY 1, 2, 3, 4;
INSERT INTO projections.fix_days
SELECT (f.captured_at AT TIME ZONE 'UTC')::date, f.provider, coalesce(f.app, ''), coalesce(f.os, ''), f.accuracy,
       f.accuracy_authorization, f.claim_mismatch, count(*)
FROM projections.fixes f GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO projections.accuracy_values
SELECT f.provider, coalesce(f.app, ''), coalesce(f.os, ''), f.horizontal_accuracy, count(*)
FROM projections.fixes f GROUP BY 1, 2, 3, 4;
INSERT INTO projections.latest_fixes
SELECT DISTINCT ON (f.entity_kind, f.entity_id, q.quality)
       f.entity_kind, f.entity_id, q.quality, f.position, f.event_id, f.captured_at, f.lat, f.lon, f.horizontal_accuracy,
       f.accuracy, f.provider, f.region, f.near_boundary, f.app
FROM projections.fixes f
CROSS JOIN LATERAL (VALUES ('any'), ('precise')) q(quality)
WHERE f.entity_kind IN ('merchant', 'terminal') AND (q.quality = 'any' OR f.accuracy = 'precise')
  AND (f.entity_kind = 'terminal' OR f.event_type = 'MerchantAddressFixed')
ORDER BY f.entity_kind, f.entity_id, q.quality, f.captured_at DESC, f.event_id DESC;

-- ios, android or unknown, from the operating system as the apps send it (`iOS 17.2`, `Android 13`, any case).
CREATE FUNCTION report_platform(os text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN lower(btrim(os)) LIKE 'ios%' OR lower(btrim(os)) LIKE 'ipados%' THEN 'ios'
                WHEN lower(btrim(os)) LIKE 'android%' THEN 'android'
                ELSE 'unknown' END
$$;

-- The UTC day of an instant, and the first UTC day starting at or after it.
CREATE FUNCTION report_day_of(t timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$;
CREATE FUNCTION report_day_after(t timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN (t AT TIME ZONE 'UTC')::time = '00:00' THEN (t AT TIME ZONE 'UTC')::date
                ELSE (t AT TIME ZONE 'UTC')::date + 1 END
$$;

-- Every report takes the same filters, each NULL for none: captured from (inclusive) and to (exclusive), the app,
-- the provider.

-- Fixes whose client claim disagrees with the server's region check, by provider, app and the server's region.
CREATE FUNCTION report_region_mismatch(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, app text, region text, mismatches bigint, first_captured_at timestamptz,
               last_captured_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT f.provider, f.app, f.region, count(*), min(f.captured_at), max(f.captured_at)
        FROM projections.fixes f
        WHERE f.claim_mismatch
          AND (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
          AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
        GROUP BY f.provider, f.app, f.region
        ORDER BY count(*) DESC, f.provider, f.app NULLS LAST, f.region;
END
$$;

-- Fixes counted by day of capture (UTC), provider, app, os, accuracy flag, authorisation and claim mismatch, for
-- captures in [p_from, p_to): the whole UTC days from fix_days, the parts of the days p_from and p_to cut from the
-- fix history (through fixes_captured).
CREATE FUNCTION report_fix_counts(p_from timestamptz, p_to timestamptz)
RETURNS TABLE (day date, provider text, app text, os text, accuracy text, accuracy_authorization text,
               claim_mismatch boolean, fixes bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT d.day, d.provider, nullif(d.app, ''), nullif(d.os, ''), d.accuracy, d.accuracy_authorization,
               d.claim_mismatch, d.fixes
        FROM projections.fix_days d
        WHERE (p_from IS NULL OR d.day >= report_day_after(p_from)) AND (p_to IS NULL OR d.day < report_day_of(p_to))
        UNION ALL
        SELECT (f.captured_at AT TIME ZONE 'UTC')::date, f.provider, f.app, f.os, f.accuracy, f.accuracy_authorization,
               f.claim_mismatch, count(*)
        FROM projections.fixes f
        WHERE ((p_from IS NOT NULL AND f.captured_at >= p_from AND f.captured_at < report_day_after(p_from)::timestamp AT TIME ZONE 'UTC')
               OR (p_to IS NOT NULL AND f.captured_at >= report_day_of(p_to)::timestamp AT TIME ZONE 'UTC' AND f.captured_at < p_to))
          AND (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
        GROUP BY 1, 2, 3, 4, 5, 6, 7;
END
$$;

-- Shares of precise, approximate and unusable fixes and of reduced authorisation, by provider, app and day (UTC) of
-- capture.
CREATE FUNCTION report_accuracy(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, app text, day date, fixes bigint, precise float8, approximate float8, unusable float8,
               reduced float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT c.provider, c.app, c.day, sum(c.fixes)::bigint,
               coalesce(sum(c.fixes) FILTER (WHERE c.accuracy = 'precise'), 0)::float8 / sum(c.fixes),
               coalesce(sum(c.fixes) FILTER (WHERE c.accuracy = 'approximate'), 0)::float8 / sum(c.fixes),
               coalesce(sum(c.fixes) FILTER (WHERE c.accuracy = 'unusable'), 0)::float8 / sum(c.fixes),
               coalesce(sum(c.fixes) FILTER (WHERE c.accuracy_authorization = 'reduced'), 0)::float8 / sum(c.fixes)
        FROM report_fix_counts(p_from, p_to) c
        WHERE (p_app IS NULL OR c.app = p_app) AND (p_provider IS NULL OR c.provider = p_provider)
        GROUP BY 1, 2, 3
        ORDER BY 1, 2 NULLS LAST, 3;
END
$$;

-- Per provider and platform: fixes, failures in all and by error category, median and 90th percentile of the
-- horizontal accuracy in metres (percentile_cont's: interpolated), and the share of fixes whose claim mismatched.
-- Over the whole history the percentiles come from accuracy_values; over a time range, from the fix history.
CREATE FUNCTION report_providers(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (provider text, platform text, fixes bigint, failures bigint, failures_by_category text,
               median_accuracy float8, p90_accuracy float8, mismatch_rate float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        WITH counts AS (
            SELECT c.provider, report_platform(c.os) AS platform, sum(c.fixes)::bigint AS fixes,
                   (coalesce(sum(c.fixes) FILTER (WHERE c.claim_mismatch), 0))::float8 / sum(c.fixes) AS mismatch_rate
            FROM report_fix_counts(p_from, p_to) c
            WHERE (p_app IS NULL OR c.app = p_app) AND (p_provider IS NULL OR c.provider = p_provider)
            GROUP BY 1, 2
        ), values_counted AS (
            SELECT v.provider, report_platform(nullif(v.os, '')) AS platform, v.horizontal_accuracy AS value,
                   sum(v.fixes) AS n
            FROM projections.accuracy_values v
            WHERE p_from IS NULL AND p_to IS NULL
              AND (p_app IS NULL OR v.app = p_app) AND (p_provider IS NULL OR v.provider = p_provider)
            GROUP BY 1, 2, 3
            UNION ALL
            SELECT f.provider, report_platform(f.os), f.horizontal_accuracy, count(*)
            FROM projections.fixes f
            WHERE (p_from IS NOT NULL OR p_to IS NOT NULL)
              AND (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
              AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
            GROUP BY 1, 2, 3
        ), running AS (
            SELECT provider, platform, value,
                   sum(n) OVER (PARTITION BY provider, platform ORDER BY value) AS upto,
                   sum(n) OVER (PARTITION BY provider, platform) AS total
            FROM values_counted
        ), ranks AS (
            -- The k-th value (from 0) is the first whose running count exceeds k.
            SELECT provider, platform, 0.5 * (max(total) - 1) AS median_at, 0.9 * (max(total) - 1) AS p90_at,
                   min(value) FILTER (WHERE upto > floor(0.5 * (total - 1))) AS median_low,
                   min(value) FILTER (WHERE upto > ceil(0.5 * (total - 1))) AS median_high,
                   min(value) FILTER (WHERE upto > floor(0.9 * (total - 1))) AS p90_low,
                   min(value) FILTER (WHERE upto > ceil(0.9 * (total - 1))) AS p90_high
            FROM running GROUP BY 1, 2
        ), fix_stats AS (
            SELECT c.provider, c.platform, c.fixes, c.mismatch_rate,
                   r.median_low + (r.median_high - r.median_low) * (r.median_at - floor(r.median_at))::float8 AS median_accuracy,
                   r.p90_low + (r.p90_high - r.p90_low) * (r.p90_at - floor(r.p90_at))::float8 AS p90_accuracy
            FROM counts c JOIN ranks r ON r.provider = c.provider AND r.platform = c.platform
        ), failure_counts AS (
            SELECT l.provider, report_platform(l.os) AS platform, l.category, count(*) AS failures
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
        FROM fix_stats s FULL JOIN failure_stats c ON c.provider = s.provider AND c.platform = s.platform
        ORDER BY 1, 2;
END
$$;

-- Bound terminals whose newest precise fix is more than p_threshold metres from their merchant's address position
-- (its newest precise address fix), largest first. The filters apply to the terminal's fix.
CREATE FUNCTION report_terminal_drift(p_from timestamptz, p_to timestamptz, p_app text, p_provider text,
                                      p_threshold float8)
RETURNS TABLE (terminal_id text, merchant_id text, drift float8, lat float8, lon float8, captured_at timestamptz,
               provider text, app text, merchant_lat float8, merchant_lon float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        -- The merchants' positions are read on their own, then joined: on Citus a merchant's row and its terminals'
        -- rows are on different nodes.
        WITH m AS MATERIALIZED (
            SELECT l.entity_id, l.lat, l.lon FROM projections.latest_fixes l WHERE l.entity_kind = 'merchant' AND l.quality = 'precise'
        )
        SELECT d.* FROM (
            SELECT t.terminal_id, t.merchant_id, geo_distance_m(m.lat, m.lon, f.lat, f.lon) AS drift, f.lat, f.lon,
                   f.captured_at, f.provider, f.app, m.lat, m.lon
            FROM projections.terminals t
            JOIN projections.latest_fixes f
              ON f.entity_kind = 'terminal' AND f.entity_id = t.terminal_id AND f.quality = 'precise'
            JOIN m ON m.entity_id = t.merchant_id
            WHERE t.merchant_id IS NOT NULL
              AND (p_from IS NULL OR f.captured_at >= p_from) AND (p_to IS NULL OR f.captured_at < p_to)
              AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
        ) d
        WHERE d.drift > p_threshold
        ORDER BY d.drift DESC, d.terminal_id;
END
$$;

-- Visit records whose fix is more than p_threshold metres from the merchant's address position, by visitor, the
-- farthest first. The filters apply to the visit's fix.
CREATE FUNCTION report_visit_distance(p_from timestamptz, p_to timestamptz, p_app text, p_provider text,
                                      p_threshold float8)
RETURNS TABLE (visitor_id text, visit_id text, merchant_id text, distance float8, lat float8, lon float8,
               captured_at timestamptz, provider text, app text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        -- As for the drift: the merchants' positions on their own; a visit's fix has the visit's id as its entity.
        WITH m AS MATERIALIZED (
            SELECT l.entity_id, l.lat, l.lon FROM projections.latest_fixes l WHERE l.entity_kind = 'merchant' AND l.quality = 'precise'
        )
        SELECT d.* FROM (
            SELECT v.visitor_id, v.visit_id, v.merchant_id, geo_distance_m(m.lat, m.lon, f.lat, f.lon) AS distance,
                   f.lat, f.lon, f.captured_at, f.provider, f.app
            FROM projections.visits v
            JOIN projections.fixes f ON f.entity_id = v.visit_id AND f.position = v.position AND f.entity_kind = 'visit'
            JOIN m ON m.entity_id = v.merchant_id
            WHERE (p_from IS NULL OR v.captured_at >= p_from) AND (p_to IS NULL OR v.captured_at < p_to)
              AND (p_app IS NULL OR f.app = p_app) AND (p_provider IS NULL OR f.provider = p_provider)
        ) d
        WHERE d.distance > p_threshold
        ORDER BY d.visitor_id, d.distance DESC, d.visit_id;
END
$$;

-- Merchants whose address position (newest precise address fix) is not in mainland China. The filters apply to
-- that fix.
CREATE FUNCTION report_outside_region(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (merchant_id text, region text, near_boundary boolean, lat float8, lon float8, captured_at timestamptz,
               provider text, app text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT m.entity_id, m.region, m.near_boundary, m.lat, m.lon, m.captured_at, m.provider, m.app
        FROM projections.latest_fixes m
        WHERE m.entity_kind = 'merchant' AND m.quality = 'precise' AND m.region <> 'mainland'
          AND (p_from IS NULL OR m.captured_at >= p_from) AND (p_to IS NULL OR m.captured_at < p_to)
          AND (p_app IS NULL OR m.app = p_app) AND (p_provider IS NULL OR m.provider = p_provider)
        ORDER BY m.entity_id;
END
$$;

-- Merchants, and terminals bound now, whose newest fix of any quality was captured more than p_days days before
-- p_at, the longest silent first. The app and provider filters apply to that fix.
CREATE FUNCTION report_stale(p_at timestamptz, p_app text, p_provider text, p_days integer)
RETURNS TABLE (kind text, id text, last_fix_at timestamptz, days_since integer, lat float8, lon float8,
               provider text, app text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT l.entity_kind, l.entity_id, l.captured_at, floor(extract(epoch FROM p_at - l.captured_at) / 86400)::integer,
               l.lat, l.lon, l.provider, l.app
        FROM projections.latest_fixes l
        WHERE l.quality = 'any' AND l.captured_at < p_at - make_interval(days => p_days)
          AND (l.entity_kind = 'merchant'
               OR EXISTS (SELECT 1 FROM projections.terminals t WHERE t.terminal_id = l.entity_id AND t.merchant_id IS NOT NULL))
          AND (p_app IS NULL OR l.app = p_app) AND (p_provider IS NULL OR l.provider = p_provider)
        ORDER BY l.captured_at, l.entity_kind, l.entity_id;
END
$$;

-- Events appended per day of receipt (UTC) and type. The answer is always 'appended': only appended events are
-- stored. A day counts when it starts at or after the day of p_from and before p_to.
CREATE FUNCTION report_daily(p_from timestamptz, p_to timestamptz, p_app text, p_provider text)
RETURNS TABLE (day date, event_type text, answer text, events bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        SELECT d.day, d.event_type, 'appended', sum(d.events)::bigint
        FROM projections.daily_events d
        WHERE (p_from IS NULL OR d.day >= (p_from AT TIME ZONE 'UTC')::date)
          AND (p_to IS NULL OR d.day < p_to AT TIME ZONE 'UTC')
          AND (p_app IS NULL OR d.app = p_app) AND (p_provider IS NULL OR d.provider = p_provider)
        GROUP BY d.day, d.event_type
        ORDER BY d.day, d.event_type;
END
$$;
