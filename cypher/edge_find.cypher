// Edges of any item, optionally of one kind (the slot), weight and activity.
// @params from to min_weight active_only limit readable
MATCH (a:Item)-[r/*<kind>*//*</kind>*/]->(b:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND @readable(a) AND @readable(b)
  AND ($from IS NULL OR a.id = $from)
  AND ($to IS NULL OR b.id = $to)
  AND ($min_weight IS NULL OR r.weight >= $min_weight)
  AND (NOT $active_only OR r.active)
WITH a, r, b
ORDER BY r.edge_id
LIMIT $limit
RETURN @edge(r, a, b) AS edge
