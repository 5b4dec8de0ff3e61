// Items on the other side of active CONTRADICTS edges, either direction,
// for each given item; self-contradictions are left out. One row per item id.
// @params ids readable
UNWIND $ids AS id
MATCH (x:Item {id: id})-[r:CONTRADICTS]-(y:Item)
WHERE r.active = true AND r.retracted = false AND y.retracted = false AND y.id <> id
  AND @readable(x) AND @readable(y)
WITH DISTINCT id, y
ORDER BY y.id
RETURN id, collect(@item(y)) AS items
