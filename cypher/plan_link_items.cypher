// Mirror the links of the given items (just created or updated) as
// relationships (docs/graph-model.md): each item's IN_INTENT and IN_TASK are
// made again from its intent_id and task_id, to the intent and task that
// exist (those created later link it then); and the ROOT, READS and WROTE
// links intents and tasks made to a PendingItem for its id move to it.
// Idempotent. Links ignore the grants on intents and tasks: they mirror ids,
// and the statement returns nothing of them. Returns the number of items.
// @params ids writable
UNWIND $ids AS id
MATCH (m:Item {id: id})
WHERE @writable(m)
CALL {
  WITH m
  OPTIONAL MATCH (m)-[r:IN_INTENT|IN_TASK]->()
  DELETE r
  RETURN count(*) AS unlinked
}
CALL {
  WITH m
  MATCH (i:Intent {id: m.intent_id})
  CREATE (m)-[:IN_INTENT]->(i)
  RETURN count(*) AS in_intent
}
CALL {
  WITH m
  MATCH (t:Task {id: m.task_id})
  CREATE (m)-[:IN_TASK]->(t)
  RETURN count(*) AS in_task
}
CALL {
  WITH m
  MATCH (w:PendingItem {id: m.id})<-[r:ROOT|READS|WROTE]-(s)
  FOREACH (_ IN CASE WHEN type(r) = 'ROOT' THEN [1] ELSE [] END |
    CREATE (s)-[:ROOT {ord: r.ord}]->(m))
  FOREACH (_ IN CASE WHEN type(r) = 'READS' THEN [1] ELSE [] END |
    CREATE (s)-[:READS {ord: r.ord}]->(m))
  FOREACH (_ IN CASE WHEN type(r) = 'WROTE' THEN [1] ELSE [] END |
    CREATE (s)-[:WROTE {ord: r.ord}]->(m))
  DELETE r
  WITH DISTINCT w
  DELETE w
  RETURN count(*) AS resolved
}
RETURN count(m) AS linked
