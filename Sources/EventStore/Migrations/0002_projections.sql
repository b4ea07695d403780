-- Read models kept from the events, in their own schema so that `replay` can build a fresh copy beside them
-- and swap it in at once. Every row can be rebuilt from the log.

CREATE SCHEMA projections;

-- Every fix, flat: history and reports.
CREATE TABLE projections.fixes (
    position            bigint      PRIMARY KEY,
    event_id            uuid        NOT NULL,
    event_type          text        NOT NULL,
    entity_kind         text        NOT NULL,       -- merchant, enterprise, terminal, visit
    entity_id           text        NOT NULL,
    merchant_id         text,                       -- the merchant concerned, for every kind but enterprise
    purpose             text,
    captured_at         timestamptz NOT NULL,       -- device time
    received_at         timestamptz NOT NULL,       -- server time
    lat                 float8      NOT NULL,       -- WGS-84
    lon                 float8      NOT NULL,
    gcj02_lat           float8      NOT NULL,
    gcj02_lon           float8      NOT NULL,
    datum               text        NOT NULL,       -- the datum the fix was in, sent or inferred
    datum_inferred      boolean     NOT NULL,
    horizontal_accuracy float8      NOT NULL,
    accuracy_authorization text     NOT NULL,       -- full, reduced, unknown
    accuracy            text        NOT NULL,       -- precise, approximate, unusable
    provider            text        NOT NULL,
    region              text        NOT NULL,
    near_boundary       boolean     NOT NULL,
    in_region           boolean     NOT NULL,
    claimed_in_region   boolean,
    claim_mismatch      boolean     NOT NULL,
    flags               text[]      NOT NULL,
    province            text,
    city                text,
    district            text,
    adcode              text,
    formatted_address   text,
    app                 text,
    app_version         text,
    user_id             text,
    device_id           text
);
CREATE INDEX fixes_entity ON projections.fixes (entity_kind, entity_id, captured_at DESC);
CREATE INDEX fixes_captured ON projections.fixes (captured_at);

-- Failed location attempts, for reports.
CREATE TABLE projections.failures (
    position      bigint      PRIMARY KEY,
    event_id      uuid        NOT NULL,
    entity_kind   text        NOT NULL,
    entity_id     text        NOT NULL,
    purpose       text,
    provider      text        NOT NULL,
    error_code    text        NOT NULL,
    category      text        NOT NULL,
    error_message text,
    captured_at   timestamptz NOT NULL,
    received_at   timestamptz NOT NULL,
    app           text,
    app_version   text,
    user_id       text,
    device_id     text
);
CREATE INDEX failures_captured ON projections.failures (captured_at);

-- The address position of merchants and enterprises: the latest fix of any quality and the latest precise
-- one, "latest" by capture time (ties broken by event id, so arrival order never matters).
CREATE TABLE projections.address_positions (
    entity_kind                text        NOT NULL,
    entity_id                  text        NOT NULL,
    latest_position            bigint      NOT NULL,
    latest_event_id            uuid        NOT NULL,
    latest_captured_at         timestamptz NOT NULL,
    latest_lat                 float8      NOT NULL,
    latest_lon                 float8      NOT NULL,
    latest_accuracy            text        NOT NULL,
    latest_horizontal_accuracy float8      NOT NULL,
    latest_provider            text        NOT NULL,
    latest_region              text        NOT NULL,
    precise_position           bigint,
    precise_event_id           uuid,
    precise_captured_at        timestamptz,
    precise_lat                float8,
    precise_lon                float8,
    precise_horizontal_accuracy float8,
    precise_provider           text,
    precise_region             text,
    PRIMARY KEY (entity_kind, entity_id)
);

-- Terminals: the binding (from the stream's bind/unbind events, in stream order) and the latest device fix.
CREATE TABLE projections.terminals (
    terminal_id         text        PRIMARY KEY,
    merchant_id         text,                       -- bound merchant; null when unbound
    bound_since         timestamptz,
    last_merchant_id    text,                       -- the merchant of the last bind or unbind
    binding_version     bigint,
    unbound_at          timestamptz,
    fix_position        bigint,
    fix_event_id        uuid,
    fix_captured_at     timestamptz,
    fix_lat             float8,
    fix_lon             float8,
    fix_accuracy        text,
    fix_horizontal_accuracy float8,
    fix_provider        text,
    fix_region          text
);
CREATE INDEX terminals_merchant ON projections.terminals (merchant_id);

-- Sales visits: the latest record of each visit.
CREATE TABLE projections.visits (
    visit_id            text        PRIMARY KEY,
    merchant_id         text        NOT NULL,
    visitor_id          text        NOT NULL,
    note                text,
    position            bigint      NOT NULL,
    event_id            uuid        NOT NULL,
    captured_at         timestamptz NOT NULL,
    lat                 float8      NOT NULL,
    lon                 float8      NOT NULL,
    accuracy            text        NOT NULL,
    horizontal_accuracy float8      NOT NULL,
    provider            text        NOT NULL,
    region              text        NOT NULL
);
CREATE INDEX visits_merchant ON projections.visits (merchant_id, captured_at);
CREATE INDEX visits_captured ON projections.visits (captured_at);

-- Great-circle distance in metres (haversine, mean earth radius), the same formula as Geo's.
CREATE FUNCTION geo_distance_m(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 2 * 6371008.8 * asin(sqrt(
        power(sin(radians(lat2 - lat1) / 2), 2)
        + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lon2 - lon1) / 2), 2)))
$$;
