// Sort key: conviction (missing counts as 0).
MATCH (n:Item) RETURN n ORDER BY /*<key>*/coalesce(n.conviction, 0.0)/*</key>*/
