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
@plan_links(n)
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
