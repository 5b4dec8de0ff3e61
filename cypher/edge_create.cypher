// Create a typed edge between two live items, its EdgeKey (the edge_id
// index: relationship indexes are per type, kinds are open-ended) and the
// edge.created event. Its seq is the log position of that event (insertion
// order). No row back: an endpoint is missing or the id is taken.
// @params from to edge_id props key events writable
MATCH (a:Item {id: $from})
WHERE a.retracted = false AND @writable(a)
MATCH (b:Item {id: $to})
WHERE b.retracted = false AND @writable(b)
OPTIONAL MATCH (dup:EdgeKey {edge_id: $edge_id})
WITH a, b, dup
WHERE dup IS NULL
MATCH (counter:Counter {name: 'event'})
CREATE (a)-[r:/*<kind>*/RELATED/*</kind>*/]->(b)
SET r = $props, r.seq = counter.value + 1
CREATE (k:EdgeKey)
SET k = $key
WITH a, b, r
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r.edge_id AS edge_id
