// The tail of a statement that began with @log_lock: when `ok`, move the
// log counter on by the `count` positions the command's events take, and
// store as nodes the events that are not kept on their items (`placed`, each
// with `at`, its place among them, and its scope: an event naming no
// scopes tells about its scope, as in log_events); when not, leave the
// counter as it was.
// Included where the statement has one row, e.g. as at-sign
// log_placed(ok, $events, $count).
// @shape ok placed count
MATCH (log_seq:Counter {name: 'event'})
WITH log_seq, 0 AS log_base, true AS ok, [] AS placed, 0 AS count
/*<shape>*/SET log_seq.value = log_base + CASE WHEN ok THEN count ELSE 0 END,
    log_seq.locked = null
FOREACH (log_i IN CASE WHEN ok THEN range(0, size(placed) - 1) ELSE [] END |
  CREATE (log_e:Event)
  SET log_e = placed[log_i], log_e.seq = log_base + placed[log_i].at + 1,
      log_e.scopes = coalesce(placed[log_i].scopes, [placed[log_i].scope])
  SET log_e.at = null)/*</shape>*/
RETURN ok
