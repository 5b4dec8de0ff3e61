// Retract a live item (a tombstone: the node stays, invisible to queries)
// and append the memory.retracted event. No row back: missing or retracted.
// @params id events writable
MATCH (n:Item {id: $id})
WHERE n.retracted = false AND @writable(n)
SET n.retracted = true
WITH n
@log_events($events, n.scope, [n.scope])
RETURN n.id AS id
