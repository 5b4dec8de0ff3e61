// Retract an edge (tombstone: its id stays taken) at the version it was read
// at, and append edge.retracted. No row back: gone, or changed since.
// @params edge_id version events writable
MATCH (k:EdgeKey {edge_id: $edge_id})
MATCH (a:Item {id: k.from_id})-[r]->(b:Item {id: k.to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false AND r.version = $version
  AND @writable(a) AND @writable(b)
SET r.retracted = true, r.version = $version + 1
WITH a, b, r
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r.edge_id AS edge_id
