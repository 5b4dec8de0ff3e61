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
// Working memory (memexd/memory/working.py): $evict names the items ({id,
// version}, as read) a session's capacity archives as these come in, with
// their memory.archived events (placed after the items' positions), and
// $occupancy how many live SESSION items each (scope, session) held when
// that was planned; both are checked first, so a plan made stale by another
// write writes nothing (the caller plans again). Empty for most batches.
// Returns no row when an id is already taken, a parent is fenced by a
// cascade in progress (the caller waits and tries again) or a working-memory
// plan is stale.
// @params ids rows extras links parent_ids intent_links task_links evict_ids evict evict_events occupancy occ_sessions writable
OPTIONAL MATCH (dup:Item) WHERE dup.id IN $ids
WITH count(dup) AS dups
OPTIONAL MATCH (fenced:Item) WHERE fenced.id IN $parent_ids AND fenced.fence_until > timestamp()
WITH dups, count(fenced) AS fences
OPTIONAL MATCH (old:Item)
WHERE old.id IN $evict_ids AND old.retracted = false AND old.archived IS NULL
  AND any(e IN $evict WHERE e.id = old.id AND e.version = old.version)
WITH dups, fences, count(old) AS evictable
OPTIONAL MATCH (held:Item)
WHERE held.`meta.session_id` IN $occ_sessions AND held.lifecycle = 'SESSION'
  AND held.retracted = false AND held.archived IS NULL
WITH dups, fences, evictable, collect([held.scope, held.`meta.session_id`]) AS holding
WHERE dups = 0 AND fences = 0 AND evictable = size($evict_ids)
  AND all(o IN $occupancy
          WHERE size([h IN holding WHERE h[0] = o.scope AND h[1] = o.session]) = o.held)
  AND all(row IN $rows WHERE @writable_scope(row[1]))
@log_reserve(size($rows) + size($evict_events))
UNWIND range(0, size($rows) - 1) AS i
WITH log_base, i, $rows[i] AS r
CREATE (n:Item:Unembedded)
@item_node(n, r, $extras[i]), n.seq = log_base + i + 1
WITH log_base, collect(n) AS made
WHERE size(made) = size($rows)
WITH log_base, made, size(made) AS created
CALL {
  WITH log_base
  UNWIND range(0, size($evict_ids) - 1) AS j
  MATCH (old:Item {id: $evict_ids[j]})
  SET old.archived = true, old.archived_at = timestamp()
  CREATE (log_e:Event)
  SET log_e = $evict_events[j], log_e.seq = log_base + size($rows) + j + 1
  RETURN count(*) AS evicted
}
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
