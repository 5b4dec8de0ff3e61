// Sort key: importance (missing counts as 0).
MATCH (n:Item) RETURN n ORDER BY /*<key>*/coalesce(n.importance, 0.0)/*</key>*/
