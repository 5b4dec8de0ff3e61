// Live items naming each given id as a parent, one row per id: through PARENT
// when the parent exists (live or retracted), through AWAITS when it does not
// (MemEX: the children of an id are the items listing it, whatever it is).
// @params ids readable
UNWIND $ids AS id
OPTIONAL MATCH (p:Item {id: id})
OPTIONAL MATCH (w:Placeholder {id: id})
WITH id, coalesce(p, w) AS parent
MATCH (parent)<-[:PARENT|AWAITS]-(c:Item)
WHERE c.retracted = false AND @readable(c)
WITH DISTINCT id, c
ORDER BY c.id
RETURN id, collect(@item(c)) AS children
