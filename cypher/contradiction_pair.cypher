// The state a resolution depends on: both items (live), the loser's version
// and authority, and the active CONTRADICTS edges between them.
// @params winner loser readable
MATCH (w:Item {id: $winner})
WHERE w.retracted = false AND @readable(w)
MATCH (l:Item {id: $loser})
WHERE l.retracted = false AND @readable(l)
OPTIONAL MATCH (w)-[c:CONTRADICTS]-(l)
WHERE c.active = true AND c.retracted = false
WITH w, l, collect(DISTINCT c.edge_id) AS edges
RETURN w.scope AS winner_scope, l.scope AS loser_scope, l.version AS version,
       l.authority AS authority, edges
