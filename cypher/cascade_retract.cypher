// Retract a dependency closure in one atomic statement. $ids is the closure
// the caller walked, in post-order (children before parents). Children that a
// concurrent writer added since the walk are absorbed here, up to 8 levels
// below the closure (a mark, $token, is the visited set), and retracted first,
// deepest and newest first, with events from the $spare ids. If the closure
// changed in another way (an item gone) or the newcomers go deeper or number
// more than $spare, nothing is retracted (ok = false) and the caller walks
// again. Marks are always removed. Only children the caller can read are
// absorbed; one it can read but not write also fails the statement, so the
// walk runs again and reports it.
// @params ids events token spare payload ts origin readable writable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @writable(n)
SET n.cascade_token = $token
WITH collect(n) AS doomed
CALL {
  WITH doomed
  UNWIND doomed AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a1
}
CALL {
  WITH a1
  UNWIND a1 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a2
}
CALL {
  WITH a2
  UNWIND a2 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a3
}
CALL {
  WITH a3
  UNWIND a3 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a4
}
CALL {
  WITH a4
  UNWIND a4 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a5
}
CALL {
  WITH a5
  UNWIND a5 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a6
}
CALL {
  WITH a6
  UNWIND a6 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a7
}
CALL {
  WITH a7
  UNWIND a7 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  SET c.cascade_token = $token
  RETURN collect(DISTINCT c) AS a8
}
CALL {
  WITH a8
  UNWIND a8 AS x
  MATCH (x)<-[:PARENT]-(c:Item)
  WHERE c.retracted = false AND @readable(c) AND coalesce(c.cascade_token, '') <> $token
  RETURN count(c) AS deeper
}
CALL {
  WITH a1, a2, a3, a4, a5, a6, a7, a8
  UNWIND [[1, a1], [2, a2], [3, a3], [4, a4], [5, a5], [6, a6], [7, a7], [8, a8]] AS level
  UNWIND level[1] AS x
  WITH level[0] AS depth, x
  ORDER BY depth DESC, x.created_at DESC, x.id DESC
  RETURN collect(x) AS absorbed
}
WITH doomed, absorbed, deeper,
     size(doomed) = size($ids) AND deeper = 0 AND size(absorbed) <= size($spare)
       AND all(x IN absorbed WHERE @writable(x)) AS ok
FOREACH (n IN doomed + absorbed | SET n.cascade_token = null)
FOREACH (n IN CASE WHEN ok THEN absorbed + doomed ELSE [] END | SET n.retracted = true)
WITH doomed, absorbed, ok,
     CASE WHEN ok THEN absorbed + doomed ELSE [] END AS subjects,
     CASE WHEN ok THEN [j IN range(0, size(absorbed) - 1) |
       {id: $spare[j], namespace: 'memory', type: 'memory.retracted', ts: $ts,
        payload: $payload[0] + absorbed[j].id + $payload[1], subject: absorbed[j].id,
        trace_id: $origin.trace_id, cause_id: $origin.cause_id}] + $events
     ELSE [] END AS events
@log_events(events, subjects[log_i].scope, [subjects[log_i].scope])
RETURN ok, [n IN absorbed | [n.id, n.scope]] AS absorbed, size(doomed) AS found
