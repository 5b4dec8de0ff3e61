// The state a resolution depends on: both items (live), the loser as it is
// (with its version), and the active CONTRADICTS edges between them, either
// way (a self-contradiction once).
// @params winner loser readable
MATCH (w:Item {id: $winner})
WHERE w.retracted = false AND @readable(w)
MATCH (l:Item {id: $loser})
WHERE l.retracted = false AND @readable(l)
CALL {
  WITH w, l
  OPTIONAL MATCH (a:Item)-[c:CONTRADICTS]->(b:Item)
  WHERE c.active = true AND c.retracted = false
    AND ((a = w AND b = l) OR (a = l AND b = w))
  RETURN collect(DISTINCT CASE WHEN c IS NULL THEN null ELSE @edge(c, a, b) END) AS edges
}
RETURN w.scope AS winner_scope, @item(l) AS loser, edges
