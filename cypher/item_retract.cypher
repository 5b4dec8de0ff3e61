// Retract live items (tombstones: the nodes stay, invisible to queries) and
// every live typed edge touching them, and append the events, if nothing
// changed since the plan was read: each item still at its version, the edges
// touching them exactly $edge_ids, and, when $closed (a cascade), no live
// child the caller can read outside the set (a concurrent writer's child:
// the caller walks again). $token marks the set while it is checked.
// A cascade that fails fences its items and the newcomers for $fence_ms:
// item_create and
// item_update wait rather than give them new children, so the next attempt
// cannot be starved by a busy writer (a fence left by a crash expires).
// ok = false: the state moved on, or an item is not the caller's to write.
// (No filter on ok: FalkorDB would move it above the fencing FOREACH.)
// @params ids versions edge_ids closed token fence_ms events readable writable
UNWIND range(0, size($ids) - 1) AS i
MATCH (n:Item {id: $ids[i]})
WHERE n.retracted = false AND n.version = $versions[i] AND @writable(n)
SET n.retract_token = $token
WITH collect(n) AS doomed
CALL {
  WITH doomed
  UNWIND doomed AS x
  OPTIONAL MATCH (x)-[r]-(:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  RETURN collect(DISTINCT r) AS edges
}
CALL {
  WITH doomed
  UNWIND doomed AS x
  OPTIONAL MATCH (x)<-[:PARENT]-(c:Item)
  WHERE $closed AND c.retracted = false AND @readable(c)
    AND coalesce(c.retract_token, '') <> $token
  RETURN collect(DISTINCT c) AS newcomers
}
FOREACH (n IN doomed | SET n.retract_token = null)
WITH doomed, edges, newcomers,
     size(doomed) = size($ids) AND size(newcomers) = 0 AND size(edges) = size($edge_ids)
       AND all(r IN edges WHERE r.edge_id IN $edge_ids) AS ok
FOREACH (n IN CASE WHEN ok OR NOT $closed THEN [] ELSE doomed + newcomers END |
  SET n.fence_until = timestamp() + $fence_ms)
FOREACH (n IN CASE WHEN ok THEN doomed ELSE [] END |
  SET n.retracted = true, n.version = n.version + 1, n.fence_until = null)
FOREACH (r IN CASE WHEN ok THEN edges ELSE [] END |
  SET r.retracted = true, r.version = r.version + 1)
WITH doomed, ok, CASE WHEN ok THEN $events ELSE [] END AS events
@log_events(events, null, null)
RETURN ok
