// One page of the whole export: live items the caller can read, after the
// cursor in id order (for UUIDv7 ids: creation time, then id). Paging by a
// cursor keeps memory bounded however large the graph.
// @params after limit readable
MATCH (n:Item)
WHERE n.id > $after AND n.retracted = false AND @readable(n)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN @item(n) AS item
