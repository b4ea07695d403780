-- The history of one merchant, terminal or enterprise reads its fixes and its failed attempts newest first by
-- (captured_at, event_id), one page at a time; visits are listed by merchant or by visitor the same way. Each
-- reads an index in that order and stops at the page's end, instead of sorting every row of the entity.
-- A terminal's latest precise fix, which its drift is measured from, is read through fixes_entity as before: no
-- new column.

-- Failed attempts, by entity: an entity known only through failed attempts is shown with them.
CREATE INDEX failures_entity ON projections.failures (entity_kind, entity_id, captured_at DESC, event_id DESC);

-- An enterprise's fixes, which fixes_entity leaves out (it holds merchants' and terminals' only).
CREATE INDEX fixes_enterprise ON projections.fixes (entity_id, captured_at DESC, event_id DESC)
    WHERE entity_kind = 'enterprise';

-- Visit records, by visitor.
CREATE INDEX visits_visitor ON projections.visits (visitor_id, captured_at DESC, event_id DESC);
