// The head of a statement that places its events itself (item_retract,
// bulk_apply): lock the log counter and read it, before anything else, as
// log_events does (two commands never share positions, and positions become
// visible in order). What follows carries log_seq and log_base; the tail
// @log_placed moves the counter on. (Not log_reserve: these statements may
// find the state moved on and write nothing, and the log has no gaps.)
// Included (at-sign, name, no arguments) as the statement's first clause.
// @shape
/*<shape>*/MATCH (log_seq:Counter {name: 'event'})
SET log_seq.locked = true
WITH log_seq, log_seq.value AS log_base/*</shape>*/
RETURN log_base
