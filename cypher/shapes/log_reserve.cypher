// The head of a statement that takes one log position per row of a batch
// (item_create: each item's memory.created event): lock the log counter,
// then reserve `reserved` positions, the first being log_base + 1. Locked before it is read, as in log_events (two
// commands never share positions, and positions become visible in order).
// Included (at-sign, name, the count) where the statement has one row;
// what follows sees only log_base.
// @shape reserved
WITH 0 AS reserved
/*<shape>*/MATCH (log_seq:Counter {name: 'event'})
SET log_seq.locked = true
WITH *, log_seq.value AS log_base
SET log_seq.value = log_base + reserved, log_seq.locked = null
WITH log_base/*</shape>*/
RETURN log_base
