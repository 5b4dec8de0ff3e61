// Live items naming a parent that is missing (an AWAITS placeholder) or
// retracted (a PARENT link to a tombstone), with those parent ids. Starts
// from the problems, not from every item.
// @params limit
CALL {
  MATCH (c:Item)-[:AWAITS]->(w:Placeholder)
  WHERE c.retracted = false
  RETURN c, w.id AS bad
  UNION ALL
  MATCH (c:Item)-[:PARENT]->(p:Item)
  WHERE c.retracted = false AND p.retracted = true
  RETURN c, p.id AS bad
}
WITH c, collect(DISTINCT bad) AS bad
ORDER BY c.id
LIMIT $limit
RETURN @item(c) AS item, bad
