// Sort key: creation time (from the UUIDv7 id).
MATCH (n:Item) RETURN n ORDER BY /*<key>*/n.created_at/*</key>*/
