// Live items naming a parent that is missing for the caller: never created
// (an AWAITS placeholder), retracted (a PARENT link to a tombstone), or in a
// scope the caller cannot read (the last branch, skipped for callers who
// read everything). Starts from the problems, not from every item. Archived
// items only with $include_archived.
// @params limit include_archived readable
CALL {
  MATCH (c:Item)-[:AWAITS]->(w:Placeholder)
  WHERE c.retracted = false AND @readable(c)
  RETURN c, w.id AS bad
  UNION ALL
  MATCH (c:Item)-[:PARENT]->(p:Item)
  WHERE c.retracted = false AND p.retracted = true AND @readable(c)
  RETURN c, p.id AS bad
  UNION ALL
  UNWIND CASE WHEN '' IN $readable THEN [] ELSE [1] END AS hidden
  MATCH (c:Item)-[:PARENT]->(p:Item)
  WHERE c.retracted = false AND p.retracted = false AND @readable(c) AND NOT @readable(p)
  RETURN c, p.id AS bad
}
WITH c, collect(DISTINCT bad) AS bad
WHERE $include_archived OR c.archived IS NULL
WITH c, bad
ORDER BY c.id
LIMIT $limit
RETURN @item(c) AS item, bad
