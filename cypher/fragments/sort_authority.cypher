// Sort key: authority.
MATCH (n:Item) RETURN n ORDER BY /*<key>*/n.authority/*</key>*/
