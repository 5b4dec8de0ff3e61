// How many items' records changed after an instant, as item_changed_since
// finds them, each part counted up to $limit (memexd/history/asof.py picks
// how to walk from it before reading any id: past the limit, the ids would
// be read for nothing). An item may count in both parts.
// @params at limit
MATCH (e:Event)
WHERE e.ts > $at AND e.type STARTS WITH 'memory.' AND e.subject IS NOT NULL
WITH DISTINCT e.subject AS id
LIMIT $limit
RETURN count(id) AS changed
UNION ALL
MATCH (n:Item)
WHERE n.retracted_at > $at
WITH n
LIMIT $limit
RETURN count(n) AS changed
