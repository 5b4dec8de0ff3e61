// The items whose record changed after an instant (memexd/history/asof.py):
// subjects of memory.* event nodes logged after $at, and items whose
// retraction (kept on the item) came after it. Each part is counted up to
// $limit and gives its ids only when it has fewer: past that the caller
// reads none (at a million items, returning 10,000 ids cost more than
// finding them). An id may come in both parts.
// @params at limit
MATCH (e:Event)
WHERE e.ts > $at AND e.type STARTS WITH 'memory.' AND e.subject IS NOT NULL
WITH DISTINCT e.subject AS id
LIMIT $limit
WITH collect(id) AS ids
RETURN size(ids) AS changed, CASE WHEN size(ids) < $limit THEN ids ELSE [] END AS ids
UNION ALL
MATCH (n:Item)
WHERE n.retracted_at > $at
WITH n.id AS id
LIMIT $limit
WITH collect(id) AS ids
RETURN size(ids) AS changed, CASE WHEN size(ids) < $limit THEN ids ELSE [] END AS ids
