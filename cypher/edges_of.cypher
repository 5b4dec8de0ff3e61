// Edges touching each given item in a direction (the pattern slot), for the
// MemoryItem.edges loader. One row per item id.
// @params ids kind active_only readable
UNWIND $ids AS id
MATCH (x:Item {id: id})/*<pattern>*/-[r]-/*</pattern>*/(y:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND @readable(x) AND @readable(y)
  AND ($kind IS NULL OR type(r) = $kind)
  AND (NOT $active_only OR r.active)
WITH DISTINCT id, r
ORDER BY r.edge_id
RETURN id, collect(@edge(r, startNode(r), endNode(r))) AS edges
