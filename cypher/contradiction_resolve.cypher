// Resolve a contradiction in one statement, if nothing changed since it was
// read: the loser's version and the set of active CONTRADICTS edges between
// the pair are re-checked. As MemEX: the edges are retracted, SUPERSEDES
// winner->loser is created (seq: its insertion order), the loser's authority
// lowered, and the events appended.
// No row back: the state moved on; read again.
// The loser's memory.created event becomes a node first ($created, @log_creation).
// @params winner loser version authority edge_ids supersede key events created writable
MATCH (w:Item {id: $winner})
WHERE w.retracted = false AND @writable(w)
MATCH (l:Item {id: $loser})
WHERE l.retracted = false AND l.version = $version AND @writable(l)
OPTIONAL MATCH (w)-[c:CONTRADICTS]-(l)
WHERE c.active = true AND c.retracted = false
WITH w, l, collect(DISTINCT c) AS cs
WHERE size(cs) = size($edge_ids) AND all(c IN cs WHERE c.edge_id IN $edge_ids)
FOREACH (c IN cs | SET c.retracted = true, c.version = c.version + 1)
SET l.authority = $authority, l.version = $version + 1
@log_creation(l, $created)
WITH w, l
MATCH (counter:Counter {name: 'event'})
CREATE (w)-[s:SUPERSEDES]->(l)
SET s = $supersede, s.seq = counter.value + size($edge_ids) + 1
CREATE (k:EdgeKey)
SET k = $key
WITH w
@log_events($events, null, null)
RETURN true AS ok
