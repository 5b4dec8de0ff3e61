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
// batch without parents, intents or tasks pays nothing for them; nor does it
// look its ids up among placeholders and pending items while there are none
// (2.6 ms of 25 per 1,000 items).
// Rows are positional, in memexd.memory.creation.COLUMNS' order (a list of
// plain values is cheap to pass, and a map written here is cheap to set);
// $extras holds each item's other properties (the rest of its flattened
// meta) as a map (both set by @item_node). A link names its child by its row in the batch
// (made[link.row]: 0.7 ms per 1,000 items less than looking the id up).
// Returns no row when an id is already taken or a parent is fenced by a
// cascade in progress (the caller waits and tries again).
// @params ids rows extras links parent_ids intent_links task_links writable
OPTIONAL MATCH (dup:Item) WHERE dup.id IN $ids
WITH count(dup) AS dups
OPTIONAL MATCH (fenced:Item) WHERE fenced.id IN $parent_ids AND fenced.fence_until > timestamp()
WITH dups, count(fenced) AS fences
WHERE dups = 0 AND fences = 0 AND all(row IN $rows WHERE @writable_scope(row[1]))
@log_reserve(size($rows))
UNWIND range(0, size($rows) - 1) AS i
WITH log_base, i, $rows[i] AS r
CREATE (n:Item:Unembedded)
@item_node(n, r, $extras[i]), n.seq = log_base + i + 1
WITH collect(n) AS made
WHERE size(made) = size($rows)
WITH made, size(made) AS created
CALL {
  WITH made
  UNWIND $links AS link
  WITH made[link.row] AS c, link
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
  OPTIONAL MATCH (waiting:Placeholder) WITH waiting LIMIT 1
  UNWIND CASE WHEN waiting IS NULL THEN [] ELSE $ids END AS id
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
  OPTIONAL MATCH (waiting:PendingItem) WITH waiting LIMIT 1
  UNWIND CASE WHEN waiting IS NULL THEN [] ELSE $ids END AS id
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
