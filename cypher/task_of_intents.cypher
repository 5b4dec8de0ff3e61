// Readable tasks of each given intent, one row per intent id.
// @params ids readable
UNWIND $ids AS id
MATCH (n:Task {intent_id: id})
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(properties(n)) AS records
