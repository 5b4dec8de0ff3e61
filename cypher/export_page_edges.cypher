// One page of the whole export: live edges between live items the caller can
// read, after the cursor in edge id order (found through the indexed EdgeKey).
// @params after limit readable
MATCH (k:EdgeKey)
WHERE k.edge_id > $after
WITH k, k.from_id AS from_id, k.to_id AS to_id
MATCH (a:Item {id: from_id})-[r]->(b:Item {id: to_id})
WHERE r.edge_id = k.edge_id AND r.retracted = false AND a.retracted = false
  AND b.retracted = false AND @readable(a) AND @readable(b)
WITH k, a, r, b
ORDER BY k.edge_id
LIMIT $limit
RETURN @edge(r, a, b) AS edge
