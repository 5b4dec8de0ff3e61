// Retract a live item (a tombstone: the node stays, invisible to queries)
// and append the memory.retracted event. No row back: missing or retracted.
// @params id event
MATCH (n:Item {id: $id})
WHERE n.retracted = false
SET n.retracted = true
WITH n
MATCH (seq:Counter {name: 'event'})
SET seq.value = seq.value + 1
CREATE (e:Event)
SET e = $event, e.seq = seq.value, e.scope = n.scope
RETURN n.id AS id
