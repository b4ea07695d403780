-- The read models are kept behind the log by one projector, no longer in the append's transaction. Its checkpoint is
-- the position of the last event it projected, written in the same transaction as the rows it writes, so that every
-- event is projected exactly once whatever is stopped when. It lives in the projections schema, so that a replay's
-- rebuilt schema carries its own checkpoint when it is swapped in. One row.
CREATE TABLE projections.checkpoint (
    one        boolean     PRIMARY KEY DEFAULT true CHECK (one),
    position   bigint      NOT NULL CHECK (position >= 0)
);

-- Until now every append projected its events in its own transaction: the projections hold the whole log.
INSERT INTO projections.checkpoint (position) SELECT coalesce(max(position), 0) FROM events;
