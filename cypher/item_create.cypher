// Create a batch of items in one atomic statement: re-check that no id is
// taken, create the nodes, each at the log position of its memory.created
// event (reserved with log_reserve; the event is no node of its own while
// the item is as created: docs/events.md, "Storage"), link parents that exist (PARENT) and wait for the
// ones that do not (AWAITS a Placeholder), resolve placeholders earlier items
// left for these ids, link the items to the intent and task they name
// (IN_INTENT, IN_TASK) and take over the links intents and tasks made to a
// PendingItem for their ids (docs/graph-model.md). Each item's seq is the
// log position of its event (insertion order).
// $links, $intent_links and $task_links hold only the links there are, so a
// batch without parents, intents or tasks pays nothing for them.
// Returns no row when an id is already taken or a parent is fenced by a
// cascade in progress (the caller waits and tries again).
// @params ids rows links parent_ids intent_links task_links writable
OPTIONAL MATCH (dup:Item) WHERE dup.id IN $ids
WITH count(dup) AS dups
OPTIONAL MATCH (fenced:Item) WHERE fenced.id IN $parent_ids AND fenced.fence_until > timestamp()
WITH dups, count(fenced) AS fences
WHERE dups = 0 AND fences = 0 AND all(row IN $rows WHERE @writable(row))
@log_reserve(size($rows))
UNWIND range(0, size($rows) - 1) AS i
CREATE (n:Item)
SET n = $rows[i], n.seq = log_base + i + 1
WITH count(n) AS created
WHERE created = size($rows)
CALL {
  WITH created
  UNWIND $links AS link
  MATCH (c:Item {id: link.child})
  OPTIONAL MATCH (p:Item {id: link.parent})
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
    CREATE (c)-[:PARENT {ord: link.ord}]->(p))
  FOREACH (_ IN CASE WHEN p IS NULL THEN [1] ELSE [] END |
    MERGE (w:Placeholder {id: link.parent})
    CREATE (c)-[:AWAITS {ord: link.ord}]->(w))
  RETURN count(*) AS linked
}
CALL {
  WITH created
  UNWIND $ids AS id
  MATCH (w:Placeholder {id: id})<-[a:AWAITS]-(c:Item)
  MATCH (n:Item {id: id})
  CREATE (c)-[:PARENT {ord: a.ord}]->(n)
  DELETE a
  WITH DISTINCT w
  DELETE w
  RETURN count(*) AS resolved
}
CALL {
  WITH created
  UNWIND $intent_links AS link
  MATCH (n:Item {id: link.item})
  MATCH (i:Intent {id: link.plan})
  CREATE (n)-[:IN_INTENT]->(i)
  RETURN count(*) AS in_intent
}
CALL {
  WITH created
  UNWIND $task_links AS link
  MATCH (n:Item {id: link.item})
  MATCH (t:Task {id: link.plan})
  CREATE (n)-[:IN_TASK]->(t)
  RETURN count(*) AS in_task
}
CALL {
  WITH created
  UNWIND $ids AS id
  MATCH (w:PendingItem {id: id})<-[r:ROOT|READS|WROTE]-(s)
  MATCH (n:Item {id: id})
  FOREACH (_ IN CASE WHEN type(r) = 'ROOT' THEN [1] ELSE [] END |
    CREATE (s)-[:ROOT {ord: r.ord}]->(n))
  FOREACH (_ IN CASE WHEN type(r) = 'READS' THEN [1] ELSE [] END |
    CREATE (s)-[:READS {ord: r.ord}]->(n))
  FOREACH (_ IN CASE WHEN type(r) = 'WROTE' THEN [1] ELSE [] END |
    CREATE (s)-[:WROTE {ord: r.ord}]->(n))
  DELETE r
  WITH DISTINCT w
  DELETE w
  RETURN count(*) AS pending
}
RETURN created
