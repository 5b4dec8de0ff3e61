// Readable tasks of each given readable intent, along their FOR_INTENT links
// (a task's intent_id, mirrored), one row per intent id.
// @params ids readable
UNWIND $ids AS id
MATCH (i:Intent {id: id})
WHERE @readable(i)
MATCH (n:Task)-[:FOR_INTENT]->(i)
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(@plan(n)) AS records
