// Readable intents whose parent is each given intent, one row per parent id.
// @params ids readable
UNWIND $ids AS id
MATCH (n:Intent {parent_id: id})
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(properties(n)) AS records
