// Retract an edge (tombstone: its id stays taken) at the version it was read
// at, and append edge.retracted. No row back: gone, or changed since.
// (EdgeKey's ends are taken into plain values first: FalkorDB looks a node up
// by index only from a value, not from another node's property.)
// @params edge_id version events writable
MATCH (k:EdgeKey {edge_id: $edge_id})
WITH k, k.from_id AS from_id, k.to_id AS to_id
MATCH (a:Item {id: from_id})-[r]->(b:Item {id: to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false AND r.version = $version
  AND @writable(a) AND @writable(b)
SET r.retracted = true, r.version = $version + 1
WITH a, b, r
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r.edge_id AS edge_id
