// Retract an edge (tombstone: its id stays taken) and append edge.retracted.
// @params edge_id events writable
MATCH (k:EdgeKey {edge_id: $edge_id})
MATCH (a:Item {id: k.from_id})-[r]->(b:Item {id: k.to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false AND @writable(a) AND @writable(b)
SET r.retracted = true
WITH a, b, r
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r.edge_id AS edge_id
