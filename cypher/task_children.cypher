// Readable tasks whose parent is each given task, one row per parent id.
// @params ids readable
UNWIND $ids AS id
MATCH (n:Task {parent_id: id})
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(properties(n)) AS records
