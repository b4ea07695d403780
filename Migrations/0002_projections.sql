-- Read models kept from the events, in their own schema so that `replay` can build a fresh copy beside them
-- and swap it in at once. Every row can be rebuilt from the log, and is written in the append's transaction.

CREATE SCHEMA projections;

-- Every fix, flat: history, reports, and the current positions. The current address position of a merchant is
-- its newest MerchantAddressFixed fix by (captured_at, event_id) -- the newest precise one for "the" address --
-- and a terminal's position its newest fix: read through fixes_entity, so a late older fix can never win.
CREATE TABLE projections.fixes (
    position               bigint      PRIMARY KEY,
    event_id               uuid        NOT NULL,
    event_type             text        NOT NULL,
    entity_kind            text        NOT NULL,       -- merchant, enterprise, terminal, visit
    entity_id              text        NOT NULL,
    captured_at            timestamptz NOT NULL,       -- device time
    lat                    float8      NOT NULL,       -- WGS-84
    lon                    float8      NOT NULL,
    horizontal_accuracy    float8      NOT NULL,
    accuracy_authorization text        NOT NULL,       -- full, reduced, unknown
    accuracy               text        NOT NULL,       -- precise, approximate, unusable
    provider               text        NOT NULL,
    region                 text        NOT NULL,
    near_boundary          boolean     NOT NULL,
    claim_mismatch         boolean     NOT NULL,
    adcode                 text,
    app                    text
);
CREATE INDEX fixes_entity ON projections.fixes (entity_kind, entity_id, captured_at DESC, event_id DESC);

-- Failed location attempts, for reports.
CREATE TABLE projections.failures (
    position    bigint      PRIMARY KEY,
    event_id    uuid        NOT NULL,
    entity_kind text        NOT NULL,
    entity_id   text        NOT NULL,
    provider    text        NOT NULL,
    error_code  text        NOT NULL,
    category    text        NOT NULL,
    captured_at timestamptz NOT NULL,
    app         text
);

-- Sales visits, one row per record; a visit's current record is its newest by (captured_at, event_id).
CREATE TABLE projections.visits (
    position    bigint      PRIMARY KEY,
    event_id    uuid        NOT NULL,
    visit_id    text        NOT NULL,
    merchant_id text        NOT NULL,
    visitor_id  text        NOT NULL,
    note        text,
    captured_at timestamptz NOT NULL
);
CREATE INDEX visits_visit ON projections.visits (visit_id, captured_at DESC, event_id DESC);
CREATE INDEX visits_merchant ON projections.visits (merchant_id);

-- Terminal bindings, recomputed from the terminal's stream in stream order: the last bind or unbind decides.
CREATE TABLE projections.terminals (
    terminal_id      text        PRIMARY KEY,
    merchant_id      text,                       -- bound merchant; null when unbound
    bound_since      timestamptz,
    last_merchant_id text        NOT NULL,       -- the merchant of the last bind or unbind
    binding_version  bigint      NOT NULL,
    unbound_at       timestamptz
);
CREATE INDEX terminals_merchant ON projections.terminals (merchant_id);

-- The bind and unbind events of each terminal stream, so that recomputing a binding reads only those.
CREATE INDEX events_terminal_bindings ON events (stream, version) WHERE type IN ('TerminalBound', 'TerminalUnbound');

-- Great-circle distance in metres (haversine, mean earth radius), the same formula as Geo's.
CREATE FUNCTION geo_distance_m(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 2 * 6371008.8 * asin(sqrt(
        power(sin(radians(lat2 - lat1) / 2), 2)
        + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lon2 - lon1) / 2), 2)))
$$;
