// The items whose record changed after an instant (memexd/history/asof.py):
// subjects of memory.* event nodes logged after $at, and items whose
// retraction (kept on the item) came after it. At most $limit from each part;
// an id may come twice.
// @params at limit
MATCH (e:Event)
WHERE e.ts > $at AND e.type STARTS WITH 'memory.' AND e.subject IS NOT NULL
WITH DISTINCT e.subject AS id
LIMIT $limit
RETURN id
UNION ALL
MATCH (n:Item)
WHERE n.retracted_at > $at
WITH n.id AS id
LIMIT $limit
RETURN id
