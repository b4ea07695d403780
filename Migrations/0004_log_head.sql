-- The log chain: each event's log_hash = sha256(log_hash of the event before it in position order || hash), the
-- first event's taken after 32 zero bytes. Over the per-stream chains, it makes the last event's (position,
-- log_hash) -- the log's head -- stand for the whole log up to there, so a head kept outside the database shows
-- whether events were later removed from the end, replaced or rewritten.

ALTER TABLE events ADD COLUMN log_hash bytea;

-- The events stored so far get theirs here, in position order, with the no-update trigger off for this
-- transaction only.
ALTER TABLE events DISABLE TRIGGER events_no_update;
DO $$
DECLARE
    previous bytea := decode(repeat('00', 32), 'hex');
    event record;
BEGIN
    FOR event IN SELECT position, hash FROM events ORDER BY position LOOP
        previous := sha256(previous || event.hash);
        UPDATE events SET log_hash = previous WHERE position = event.position;
    END LOOP;
END
$$;
ALTER TABLE events ENABLE TRIGGER events_no_update;

ALTER TABLE events ALTER COLUMN log_hash SET NOT NULL;
