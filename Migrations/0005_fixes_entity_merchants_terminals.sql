-- The fix history's entity index serves the current positions, which are read for merchants and terminals only
-- (their address and latest fixes, a terminal's position); a visit's fix is read by its position, and an
-- enterprise's fixes are read by nothing. Their entries only slowed every append: the index now leaves them out.
-- Every query of the current state names its entity kind, so the planner still reads it through this index.
DROP INDEX projections.fixes_entity;
CREATE INDEX fixes_entity ON projections.fixes (entity_kind, entity_id, captured_at DESC, event_id DESC)
    WHERE entity_kind IN ('merchant', 'terminal');
