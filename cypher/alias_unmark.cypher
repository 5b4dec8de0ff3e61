// Unmark two items as the same thing: retract every ALIAS edge joining them,
// each way, at the versions read (cypher/alias_between), with an
// edge.retracted event each. No row: an edge was added, changed or retracted
// since (read again), or an item is missing or not the caller's to write.
// @params a b edges writable
MATCH (x:Item {id: $a})
WHERE @writable(x)
MATCH (y:Item {id: $b})
WHERE @writable(y)
OPTIONAL MATCH (x)-[r:ALIAS]-(y)
WHERE r.retracted = false
WITH x, y, collect(DISTINCT r) AS found
WHERE size(found) = size($edges)
  AND all(r IN found WHERE any(e IN $edges WHERE e.edge_id = r.edge_id AND e.version = r.version))
UNWIND found AS r
SET r.retracted = true, r.version = r.version + 1
WITH x, y, count(r) AS retracted
@log_events([e IN $edges | e.event], x.scope, [x.scope, y.scope])
RETURN retracted
