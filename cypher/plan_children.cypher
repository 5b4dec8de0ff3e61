// Readable sub-intents or subtasks (the label slot) of each given readable
// intent or task, along their SUBINTENT_OF / SUBTASK_OF links (a child's
// parent_id, mirrored), one row per parent id.
// @params ids readable
UNWIND $ids AS id
MATCH (p:/*<label>*/Intent/*</label>*/ {id: id})
WHERE @readable(p)
MATCH (n:/*<label>*/Intent/*</label>*/)-[:SUBINTENT_OF|SUBTASK_OF]->(p)
WHERE @readable(n)
WITH id, n
ORDER BY n.id
RETURN id, collect(@plan(n)) AS records
