// Active contradictions between live items, with both items and the edge;
// none with an archived side unless $include_archived.
// @params limit include_archived readable
MATCH (a:Item)-[r:CONTRADICTS]->(b:Item)
WHERE r.active = true AND r.retracted = false AND a.retracted = false AND b.retracted = false
  AND ($include_archived OR (a.archived IS NULL AND b.archived IS NULL))
  AND @readable(a) AND @readable(b)
WITH a, r, b
ORDER BY r.edge_id
LIMIT $limit
RETURN @item(a) AS a,
       @item(b) AS b,
       @edge(r, a, b) AS edge
