// Retract live items (tombstones: the nodes stay, invisible to queries) and
// every live typed edge touching them, and log the events, if nothing
// changed since the plan was read: each item still at its version, the edges
// touching them exactly $edge_ids (sorted; UUIDs order alike everywhere), and,
// when $closed (a cascade), no live child the caller can read outside the set
// (a concurrent writer's child: the caller walks again). The items are
// retracted first, which marks the set while it is checked (a live child of
// one is outside it), and put back as they were when the check fails.
// A cascade that fails fences its items and the newcomers for $fence_ms:
// item_create and
// item_update wait rather than give them new children, so the next attempt
// cannot be starved by a busy writer (a fence left by a crash expires).
// ok = false: the state moved on, or an item is not the caller's to write.
// (No filter on ok: FalkorDB would move it above the fencing FOREACH.)
// The log: each item keeps its own memory.retracted event ($event_ids[i]
// at $at[i], @log_retracted), the edges' events ($events) are nodes; the
// counter is locked first and moved on only when ok (@log_lock, @log_placed).
// Linear in FalkorDB (10,000 items): one SET per item (every SET re-indexes
// the node), the id a plain value before the lookup (`{id: $ids[i]}` is
// quadratic), subqueries that drop the collected list before they match
// (rows carrying it are copied), no `IN` over a list, and the events straight
// into the log, not in a variable (every WITH copies the lists it carries).
// OPTIONAL MATCH keeps the row of an item that moved on (ok is then false).
// @params ids versions event_ids at marks count edge_ids closed fence_ms events readable writable
@log_lock()
UNWIND range(0, size($ids) - 1) AS i
WITH log_seq, log_base, $ids[i] AS id, $versions[i] AS version, $event_ids[i] AS event_id,
     $at[i] AS at
OPTIONAL MATCH (n:Item {id: id})
WHERE n.retracted = false AND n.version = version AND @writable(n)
@log_retracted(n, event_id, at, $marks)
WITH log_seq, log_base, collect(n) AS doomed
CALL {
  WITH doomed
  UNWIND doomed AS x
  WITH x
  MATCH (x)-[r]-(:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  WITH DISTINCT r
  ORDER BY r.edge_id
  RETURN collect(r) AS edges, collect(r.edge_id) AS edge_ids
}
CALL {
  WITH doomed
  UNWIND doomed AS x
  WITH x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE $closed AND c.retracted = false AND @readable(c)
  RETURN collect(DISTINCT c) AS newcomers
}
WITH log_seq, log_base, doomed, edges, newcomers,
     size(doomed) = size($ids) AND size(newcomers) = 0 AND edge_ids = $edge_ids AS ok
FOREACH (n IN CASE WHEN ok THEN [] ELSE doomed END |
  SET n.retracted = false, n.version = n.version - 1
  SET n.retracted_event = null
  SET n.retracted_seq = null
  SET n.retracted_at = null
  SET n.retracted_by = null
  SET n.retracted_reason = null
  SET n.retracted_trace = null
  SET n.retracted_cause = null
  SET n.retracted_cause_type = null)
FOREACH (n IN CASE WHEN ok OR NOT $closed THEN [] ELSE doomed + newcomers END |
  SET n.fence_until = timestamp() + $fence_ms)
FOREACH (n IN CASE WHEN ok THEN [f IN doomed WHERE f.fence_until IS NOT NULL] ELSE [] END |
  SET n.fence_until = null)
FOREACH (r IN CASE WHEN ok THEN edges ELSE [] END |
  SET r.retracted = true, r.version = r.version + 1)
@log_placed(ok, $events, $count)
RETURN ok
