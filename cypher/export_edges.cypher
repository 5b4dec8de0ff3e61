// The edges leaving each given item for a live item the caller can read, at
// most $limit of them: the exporter keeps those whose target is in its set
// too (a set test in Python: `b.id IN $ids` costs the list's length per row
// in FalkorDB). Retracted edges and items (tombstones) are never exported.
// @params ids limit readable
UNWIND $ids AS id
MATCH (a:Item {id: id})-[r]->(b:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND a.retracted = false
  AND b.retracted = false AND @readable(a) AND @readable(b)
WITH a, r, b
LIMIT $limit
RETURN @edge(r, a, b) AS edge
