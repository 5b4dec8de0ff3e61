// Retract an edge (tombstone: its id stays taken) and append edge.retracted.
// @params edge_id events
MATCH (k:EdgeKey {edge_id: $edge_id})
MATCH (a:Item {id: k.from_id})-[r]->(:Item {id: k.to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false
SET r.retracted = true
WITH a, r
@log_events($events, a.scope)
RETURN r.edge_id AS edge_id
