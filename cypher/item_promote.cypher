// Promote items (SPEC §11) in one atomic statement: row i is a new PROJECT
// item promoting $sources[i] ({id, version} as read); each gets a PARENT
// link to its source and a DISCOVERED_FROM edge to it ($edges[i]: props and
// EdgeKey), with the edge.created events ($events[i]). Returns created = 0
// (nothing written) when a source changed since it was read, was retracted
// or archived, or gained a live promotion meanwhile (earlier: the caller
// reads again), or a row's scope is not writable. Log positions: the items' memory.created first (each kept on its
// node, as item_create does), then the edges' events.
// @params ids sources rows extras edges events writable
UNWIND $sources AS src
OPTIONAL MATCH (s:Item {id: src.id})
WHERE s.version = src.version AND s.retracted = false AND s.archived IS NULL AND @writable(s)
OPTIONAL MATCH (s)<-[held:DISCOVERED_FROM]-(earlier:Item)
WHERE held.retracted = false AND earlier.retracted = false
WITH count(DISTINCT s) AS found, count(earlier) AS promoted
OPTIONAL MATCH (dup:Item) WHERE dup.id IN $ids
WITH found, promoted, count(dup) AS dups
WHERE found = size($sources) AND promoted = 0 AND dups = 0
  AND all(row IN $rows WHERE @writable_scope(row[1]))
@log_reserve(size($rows) + size($events))
UNWIND range(0, size($rows) - 1) AS i
WITH log_base, i, $rows[i] AS r
MATCH (s:Item {id: $sources[i].id}) // the source checked above, found again
CREATE (n:Item:Unembedded)
@item_node(n, r, $extras[i]), n.seq = log_base + i + 1
CREATE (n)-[:PARENT {ord: 0}]->(s)
CREATE (n)-[e:DISCOVERED_FROM]->(s)
SET e = $edges[i].props, e.seq = log_base + size($rows) + i + 1
CREATE (k:EdgeKey)
SET k = $edges[i].key
CREATE (log_e:Event)
SET log_e = $events[i], log_e.seq = log_base + size($rows) + i + 1
RETURN count(n) AS created
