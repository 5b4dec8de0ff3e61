// Apply an already-merged update if the item is still at the version it was
// read at (optimistic concurrency), optionally re-linking its parents, and
// append the memory.updated event. No row back means: gone, or changed since,
// or a new parent is fenced by a cascade in progress (see item_retract).
// With $replan (its intent or task changed) it re-links IN_INTENT / IN_TASK.
// Stale meta paths are removed apart, one per SET (see records.nulls_apart).
// The item's memory.created event becomes a node first ($created, @log_creation).
// It waits for a new embedding (Unembedded: memexd/recall/embedding.py).
// @params id version props removed relink links replan events created writable
OPTIONAL MATCH (fenced:Item)
WHERE $relink AND fenced.id IN $props.parents AND fenced.fence_until > timestamp()
WITH count(fenced) AS fences
MATCH (n:Item {id: $id})
WHERE fences = 0 AND n.retracted = false AND n.version = $version AND @writable(n)
  AND @writable($props)
FOREACH (gone IN $removed | SET n += gone)
SET n += $props, n.version = $version + 1, n.scope_root = @scope_root($props.scope)
SET n:Unembedded
@log_creation(n, $created)
WITH n
CALL {
  WITH n
  WITH n WHERE $relink
  OPTIONAL MATCH (n)-[r:PARENT|AWAITS]->(target)
  DELETE r
  WITH DISTINCT target
  WHERE target:Placeholder AND NOT (target)<-[:AWAITS]-()
  DELETE target
  RETURN count(*) AS unlinked
}
CALL {
  WITH n
  UNWIND $links AS link
  OPTIONAL MATCH (p:Item {id: link.parent})
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
    CREATE (n)-[:PARENT {ord: link.ord}]->(p))
  FOREACH (_ IN CASE WHEN p IS NULL THEN [1] ELSE [] END |
    MERGE (w:Placeholder {id: link.parent})
    CREATE (n)-[:AWAITS {ord: link.ord}]->(w))
  RETURN count(*) AS linked
}
CALL {
  WITH n
  OPTIONAL MATCH (n)-[r:IN_INTENT|IN_TASK]->()
  WHERE $replan
  DELETE r
  RETURN count(*) AS unplanned
}
CALL {
  WITH n
  WITH n, n.intent_id AS intent_id
  MATCH (i:Intent {id: intent_id})
  WHERE $replan
  CREATE (n)-[:IN_INTENT]->(i)
  RETURN count(*) AS in_intent
}
CALL {
  WITH n
  WITH n, n.task_id AS task_id
  MATCH (t:Task {id: task_id})
  WHERE $replan
  CREATE (n)-[:IN_TASK]->(t)
  RETURN count(*) AS in_task
}
@log_events($events, n.scope, null)
RETURN n.id AS id
