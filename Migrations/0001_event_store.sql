-- The event log: append-only, hash-chained per stream, one global position in commit order.

CREATE TABLE events (
    position    bigint      PRIMARY KEY,            -- global, gap-free, assigned under the append lock
    event_id    uuid        NOT NULL UNIQUE,        -- chosen by the client: the idempotency key
    stream      text        NOT NULL,
    version     bigint      NOT NULL,               -- per stream, gap-free from 0
    type        text        NOT NULL,
    data        json        NOT NULL,               -- the submission as sent, canonical JSON (json keeps the exact bytes)
    metadata    json        NOT NULL,               -- what the server added: assessment, receivedAt, schema version
    recorded_at timestamptz NOT NULL,
    hash        bytea       NOT NULL,               -- sha256(previous hash of the stream || canonical event bytes)
    UNIQUE (stream, version)
);

CREATE FUNCTION events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % is not allowed on %', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();
