// Direct aliases of each given item: live items joined by an active ALIAS edge
// in either direction (the item itself excluded). One row per item id.
// (x is found by id first and the edges expanded from it: FalkorDB 4.16
// planned the one-pattern form as a scan of every item for each id.)
// @params ids readable
UNWIND $ids AS id
MATCH (x:Item {id: id})
WITH id, x
MATCH (x)-[r:ALIAS]-(y)
WHERE r.active = true AND r.retracted = false AND y.retracted = false AND y.id <> id
  AND @readable(x) AND @readable(y)
WITH DISTINCT id, y
ORDER BY y.id
RETURN id, collect(@item(y)) AS items
