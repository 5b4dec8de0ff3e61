// The log's first entry among positions 1 to $upto (memexd/memory/asof.py
// widens the window until it finds one): an event node, or an item whose
// memory.created the item keeps. Each part is limited alone; the caller
// takes the lower position.
// @params upto
MATCH (e:Event)
WHERE e.seq >= 1 AND e.seq <= $upto
WITH e.seq AS seq, e.ts AS ts
ORDER BY seq
LIMIT 1
RETURN seq, ts
UNION ALL
MATCH (n:Item)
WHERE n.seq >= 1 AND n.seq <= $upto AND n.logged IS NULL
WITH n.seq AS seq, coalesce(n.logged_at, n.created_at) AS ts
ORDER BY seq
LIMIT 1
RETURN seq, ts
