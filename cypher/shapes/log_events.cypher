// The tail of every command: append its events to the log, in the same
// statement as the change. Each event takes the next position of the log
// counter (seq, the commit order) and, unless it names its own, the scope
// and the scopes given (expressions that may use log_i, the event's index).
// `scope` is the item's scope (for scope-filtered readers); `scopes` every
// scope the event tells about (both ends of an edge, an item's scope before
// and after a move): a caller sees the event only if it can read them all.
// The counter is locked (written) before it is read: on Neo4j a read before
// the write lock could see a value a concurrent commit is about to bump, and
// two commands would share positions. Holding the lock to commit also makes
// positions visible in order, which the live feed relies on (docs/feed.md).
// Included where the statement has one row, with three arguments: the
// events (say $events), and the scope and scopes for events naming none (say
// a.scope and [a.scope, b.scope]). (Not spelt as an include here: the
// composer would expand it in this comment when the file loads on its own.)
// The list is taken in the one WITH: in FalkorDB every WITH copies the lists
// it carries (10,000 events: 0.04 s a copy), so a caller should not carry it
// in a variable either.
// @shape logged_events logged_scope logged_scopes
WITH [] AS logged_events, null AS logged_scope, null AS logged_scopes
/*<shape>*/MATCH (log_seq:Counter {name: 'event'})
SET log_seq.locked = true
WITH *, log_seq.value AS log_base, logged_events AS log_list
SET log_seq.value = log_base + size(log_list), log_seq.locked = null
FOREACH (log_i IN range(0, size(log_list) - 1) |
  CREATE (log_e:Event)
  SET log_e = log_list[log_i], log_e.seq = log_base + log_i + 1,
      log_e.scope = coalesce(log_list[log_i].scope, logged_scope),
      log_e.scopes = coalesce(log_list[log_i].scopes, logged_scopes,
                              [coalesce(log_list[log_i].scope, logged_scope)]))/*</shape>*/
RETURN log_base
