// Readable intents or tasks (the label slot) whose parent is each given id,
// one row per parent id.
// @params ids readable
UNWIND $ids AS id
MATCH (n:/*<label>*/Intent/*</label>*/ {parent_id: id})
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(properties(n)) AS records
