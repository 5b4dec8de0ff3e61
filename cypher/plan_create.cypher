// Create an intent or a task (the label slot; properties checked and
// complete) with its created event, if the id is free and the caller may
// write the scope, and mirror the links (docs/graph-model.md): its own to the
// intents, tasks and items that exist (to items that do not yet: a
// PendingItem), and those of existing records, tasks and items that name its
// id (found through the indexed id properties; not n itself, already linked).
// Links ignore grants: they mirror ids, and the statement returns nothing of
// the records it links. No row back: the id is taken (the unique constraint
// settles a race).
// @params id props events to_intents to_tasks to_items writable
OPTIONAL MATCH (dup:/*<label>*/Intent/*</label>*/ {id: $id})
WITH dup
WHERE dup IS NULL AND @writable($props)
CREATE (n:/*<label>*/Intent/*</label>*/)
SET n = $props
WITH n
CALL {
  WITH n
  UNWIND $to_intents AS link
  MATCH (i:Intent {id: link.id})
  FOREACH (_ IN CASE WHEN link.type = 'SUBINTENT_OF' THEN [1] ELSE [] END |
    CREATE (n)-[:SUBINTENT_OF]->(i))
  FOREACH (_ IN CASE WHEN link.type = 'FOR_INTENT' THEN [1] ELSE [] END |
    CREATE (n)-[:FOR_INTENT]->(i))
  RETURN count(*) AS to_intents
}
CALL {
  WITH n
  UNWIND $to_tasks AS id
  MATCH (t:Task {id: id})
  CREATE (n)-[:SUBTASK_OF]->(t)
  RETURN count(*) AS to_tasks
}
CALL {
  WITH n
  UNWIND $to_items AS link
  OPTIONAL MATCH (m:Item {id: link.id})
  FOREACH (_ IN CASE WHEN m IS NULL THEN [1] ELSE [] END | MERGE (:PendingItem {id: link.id}))
  WITH n, link, m
  OPTIONAL MATCH (w:PendingItem {id: link.id})
  WITH n, link, coalesce(m, w) AS x
  FOREACH (_ IN CASE WHEN link.type = 'ROOT' THEN [1] ELSE [] END |
    CREATE (n)-[:ROOT {ord: link.ord}]->(x))
  FOREACH (_ IN CASE WHEN link.type = 'READS' THEN [1] ELSE [] END |
    CREATE (n)-[:READS {ord: link.ord}]->(x))
  FOREACH (_ IN CASE WHEN link.type = 'WROTE' THEN [1] ELSE [] END |
    CREATE (n)-[:WROTE {ord: link.ord}]->(x))
  RETURN count(*) AS to_items
}
CALL {
  WITH n
  WITH n, n.id AS nid WHERE n:Intent
  MATCH (i:Intent {parent_id: nid})
  WHERE i <> n
  CREATE (i)-[:SUBINTENT_OF]->(n)
  RETURN count(*) AS sub_intents
}
CALL {
  WITH n
  WITH n, n.id AS nid WHERE n:Intent
  MATCH (t:Task {intent_id: nid})
  CREATE (t)-[:FOR_INTENT]->(n)
  RETURN count(*) AS tasks
}
CALL {
  WITH n
  WITH n, n.id AS nid WHERE n:Intent
  MATCH (m:Item {intent_id: nid})
  CREATE (m)-[:IN_INTENT]->(n)
  RETURN count(*) AS intent_items
}
CALL {
  WITH n
  WITH n, n.id AS nid WHERE n:Task
  MATCH (t:Task {parent_id: nid})
  WHERE t <> n
  CREATE (t)-[:SUBTASK_OF]->(n)
  RETURN count(*) AS subtasks
}
CALL {
  WITH n
  WITH n, n.id AS nid WHERE n:Task
  MATCH (m:Item {task_id: nid})
  CREATE (m)-[:IN_TASK]->(n)
  RETURN count(*) AS task_items
}
WITH n
@log_events($events, n.scope, [n.scope])
RETURN n.id AS id
