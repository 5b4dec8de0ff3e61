// Edges entering one item (index seek on the target), optionally filtered.
// @params to min_weight active_only limit readable
MATCH (a:Item)-[r/*<kind>*//*</kind>*/]->(b:Item {id: $to})
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND @readable(a) AND @readable(b)
  AND ($min_weight IS NULL OR r.weight >= $min_weight)
  AND (NOT $active_only OR r.active)
WITH a, r, b
ORDER BY r.edge_id
LIMIT $limit
RETURN @edge(r, a, b) AS edge
