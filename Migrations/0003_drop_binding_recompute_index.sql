-- Terminal bindings are carried forward over each terminal's binds and unbinds in stream order, at append and in
-- replay, from the events at hand: nothing reads a terminal's bind and unbind events back from the log any more,
-- so the partial index kept for that recomputation only slows appends.
DROP INDEX events_terminal_bindings;
