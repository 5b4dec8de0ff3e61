// Apply an intent's or a task's (the label slot) new state, an update or a
// lifecycle move, if it is still at the version it was read at and the caller
// may write it, with its event. When its links changed ($relink), its own
// link relationships are made again from the new ones, as in plan_create
// (PendingItem nodes nothing waits on any more are removed). No row back:
// changed since (read again) or not writable.
// Removed fields come apart, one per SET (see records.nulls_apart).
// @params id version props removed relink to_intents to_tasks to_items events writable
MATCH (n:/*<label>*/Intent/*</label>*/ {id: $id})
WHERE n.version = $version AND @writable(n) AND @writable($props)
FOREACH (gone IN $removed | SET n += gone)
SET n += $props, n.version = $version + 1
WITH n
CALL {
  WITH n
  WITH n WHERE $relink
  OPTIONAL MATCH (n)-[r:SUBINTENT_OF|FOR_INTENT|SUBTASK_OF|ROOT|READS|WROTE]->(x)
  DELETE r
  WITH DISTINCT x
  WHERE x:PendingItem AND NOT (x)<--()
  DELETE x
  RETURN count(*) AS unlinked
}
@plan_links(n)
WITH n
@log_events($events, n.scope, [n.scope])
RETURN n.id AS id
