// What retracting these live items takes with them: what the retraction needs
// of each item (its version, scope and order; not its record, which a
// memory.retracted event reads from the item when asked: a 10,000-item
// cascade read 3x as long with it), and every live typed edge touching it,
// with the scopes of both ends (MemEX retracts an item's edges, whatever
// their kind or state). The far end of an edge is not granted: an
// edge to an item the caller cannot read still goes, but its event is only
// shown to callers who can read both ends.
// One row per item (edge null; [id, scope, seq, created_at, version, parents]:
// a list reads back 10% faster than a map; a cascade orders its items by
// their parents, which its walk then need not return), then one per edge and
// live item it touches
// (item null; an edge between two of them comes twice): in FalkorDB a pattern
// comprehension or a CALL per item costs 25 to 100 µs, a MATCH 4.
// @params ids readable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n)
RETURN [n.id, n.scope, n.seq, n.created_at, n.version, n.parents] AS item, null AS edge,
       null AS scopes
UNION ALL
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n)
MATCH (n)-[r]-(o:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false
WITH r, startNode(r) AS a, endNode(r) AS b
RETURN null AS item, @edge(r, a, b) AS edge, [a.scope, b.scope] AS scopes
