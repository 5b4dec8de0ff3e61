// Links between intents, tasks and items become relationships too
// (docs/graph-model.md): the id properties stay the source of truth, mirrored
// to the nodes that exist; an item id no item has yet waits on a PendingItem.
// Items are found by intent_id and task_id when an intent or task is created,
// hence the indexes. Then the relationships for the records already stored
// (MERGE: running it again changes nothing).
CREATE INDEX item_intent_id IF NOT EXISTS FOR (n:Item) ON (n.intent_id);
CREATE INDEX item_task_id IF NOT EXISTS FOR (n:Item) ON (n.task_id);
CREATE CONSTRAINT pending_item_id IF NOT EXISTS FOR (n:PendingItem) REQUIRE n.id IS UNIQUE;
MATCH (n:Intent)
WHERE n.parent_id IS NOT NULL
MATCH (p:Intent {id: n.parent_id})
MERGE (n)-[:SUBINTENT_OF]->(p);
MATCH (n:Task)
WHERE n.intent_id IS NOT NULL
MATCH (p:Intent {id: n.intent_id})
MERGE (n)-[:FOR_INTENT]->(p);
MATCH (n:Task)
WHERE n.parent_id IS NOT NULL
MATCH (p:Task {id: n.parent_id})
MERGE (n)-[:SUBTASK_OF]->(p);
MATCH (n:Item)
WHERE n.intent_id IS NOT NULL
MATCH (p:Intent {id: n.intent_id})
MERGE (n)-[:IN_INTENT]->(p);
MATCH (n:Item)
WHERE n.task_id IS NOT NULL
MATCH (p:Task {id: n.task_id})
MERGE (n)-[:IN_TASK]->(p);
MATCH (n:Intent)
WHERE n.root_memory_ids IS NOT NULL
UNWIND range(0, size(n.root_memory_ids) - 1) AS ord
WITH n, ord, n.root_memory_ids[ord] AS id
OPTIONAL MATCH (m:Item {id: id})
WITH n, ord, id, m
FOREACH (_ IN CASE WHEN m IS NULL THEN [1] ELSE [] END |
  MERGE (w:PendingItem {id: id})
  MERGE (n)-[:ROOT {ord: ord}]->(w))
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END |
  MERGE (n)-[:ROOT {ord: ord}]->(m));
MATCH (n:Task)
WHERE n.input_memory_ids IS NOT NULL
UNWIND range(0, size(n.input_memory_ids) - 1) AS ord
WITH n, ord, n.input_memory_ids[ord] AS id
OPTIONAL MATCH (m:Item {id: id})
WITH n, ord, id, m
FOREACH (_ IN CASE WHEN m IS NULL THEN [1] ELSE [] END |
  MERGE (w:PendingItem {id: id})
  MERGE (n)-[:READS {ord: ord}]->(w))
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END |
  MERGE (n)-[:READS {ord: ord}]->(m));
MATCH (n:Task)
WHERE n.output_memory_ids IS NOT NULL
UNWIND range(0, size(n.output_memory_ids) - 1) AS ord
WITH n, ord, n.output_memory_ids[ord] AS id
OPTIONAL MATCH (m:Item {id: id})
WITH n, ord, id, m
FOREACH (_ IN CASE WHEN m IS NULL THEN [1] ELSE [] END |
  MERGE (w:PendingItem {id: id})
  MERGE (n)-[:WROTE {ord: ord}]->(w))
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END |
  MERGE (n)-[:WROTE {ord: ord}]->(m))
