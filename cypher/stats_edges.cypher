// Edge counts by kind, aggregated in the database over the live typed edges
// whose two ends the caller can read, with where each kind first appears in
// insertion order (MemEX lists kinds in the order it meets them).
// @params readable
MATCH (a:Item)-[r]->(b:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND a.retracted = false
  AND b.retracted = false AND @readable(a) AND @readable(b)
RETURN type(r) AS kind, count(*) AS total, sum(CASE WHEN r.active THEN 1 ELSE 0 END) AS active,
       min(coalesce(r.seq, 0)) AS first
