// Retract an edge (tombstone: its id stays taken) and append edge.retracted.
// @params edge_id event
MATCH (k:EdgeKey {edge_id: $edge_id})
MATCH (a:Item {id: k.from_id})-[r]->(:Item {id: k.to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false
SET r.retracted = true
WITH a, r
MATCH (seq:Counter {name: 'event'})
SET seq.value = seq.value + 1
CREATE (e:Event)
SET e = $event, e.seq = seq.value, e.scope = a.scope
RETURN r.edge_id AS edge_id
