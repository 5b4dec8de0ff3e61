// The tail of every command: append its events to the log, in the same
// statement as the change. Each event takes the next position of the log
// counter (seq, the commit order) and, unless it names its own scope, the
// scope given (an expression that may use log_i, the event's index). Included
// as @log_events($events, a.scope) at a point where the statement has one row.
// @shape logged_events logged_scope
WITH [] AS logged_events, null AS logged_scope
/*<shape>*/WITH *, logged_events AS log_list
MATCH (log_seq:Counter {name: 'event'})
WITH *, log_seq.value AS log_base
SET log_seq.value = log_base + size(log_list)
FOREACH (log_i IN range(0, size(log_list) - 1) |
  CREATE (log_e:Event)
  SET log_e = log_list[log_i], log_e.seq = log_base + log_i + 1,
      log_e.scope = coalesce(log_list[log_i].scope, logged_scope))/*</shape>*/
RETURN log_base
