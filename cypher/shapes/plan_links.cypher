// A plan record's own links (docs/graph-model.md), made from the link lists
// the caller computed ($to_intents, $to_tasks, $to_items): to the intents and
// tasks that exist, and to items, or to a PendingItem while an item does not
// exist yet. Links ignore grants: they mirror ids, and nothing of the records
// they reach is returned. Included as @plan_links(n) by plan_create and
// plan_write.
// @shape record
// @params to_intents to_tasks to_items
MATCH (record:Intent)
/*<shape>*/CALL {
  WITH record
  UNWIND $to_intents AS link
  MATCH (i:Intent {id: link.id})
  FOREACH (_ IN CASE WHEN link.type = 'SUBINTENT_OF' THEN [1] ELSE [] END |
    CREATE (record)-[:SUBINTENT_OF]->(i))
  FOREACH (_ IN CASE WHEN link.type = 'FOR_INTENT' THEN [1] ELSE [] END |
    CREATE (record)-[:FOR_INTENT]->(i))
  RETURN count(*) AS to_intents
}
CALL {
  WITH record
  UNWIND $to_tasks AS id
  MATCH (t:Task {id: id})
  CREATE (record)-[:SUBTASK_OF]->(t)
  RETURN count(*) AS to_tasks
}
CALL {
  WITH record
  UNWIND $to_items AS link
  OPTIONAL MATCH (m:Item {id: link.id})
  FOREACH (_ IN CASE WHEN m IS NULL THEN [1] ELSE [] END | MERGE (:PendingItem {id: link.id}))
  WITH record, link, m
  OPTIONAL MATCH (w:PendingItem {id: link.id})
  WITH record, link, coalesce(m, w) AS x
  FOREACH (_ IN CASE WHEN link.type = 'ROOT' THEN [1] ELSE [] END |
    CREATE (record)-[:ROOT {ord: link.ord}]->(x))
  FOREACH (_ IN CASE WHEN link.type = 'READS' THEN [1] ELSE [] END |
    CREATE (record)-[:READS {ord: link.ord}]->(x))
  FOREACH (_ IN CASE WHEN link.type = 'WROTE' THEN [1] ELSE [] END |
    CREATE (record)-[:WROTE {ord: link.ord}]->(x))
  RETURN count(*) AS to_items
}/*</shape>*/
RETURN record
