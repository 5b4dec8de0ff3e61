// Log retention (docs/events.md, "Retention"): fold the history of every
// item in $items whose events are all older than $before into its creation.
// Its memory.created and memory.updated event nodes go; its creation event
// is the item node again (as for an item never changed, shapes/log_creation),
// keeping its id, position, time, trace and cause; a memory.retracted event
// stays (kept on the item). Left alone: an item with a newer event, or whose creation event was
// logged before its id was derived from the item's (migration 0009), as
// folding it would change the event's id. Run by the operator's command.
// @params items before
UNWIND $items AS item
MATCH (n:Item {id: item.id})
WHERE n.logged = true
MATCH (c:Event {subject: item.id})
WHERE c.type = 'memory.created' AND c.id = item.event_id AND c.seq = n.seq
OPTIONAL MATCH (h:Event {subject: item.id})
WITH n, c, collect(h) AS history
WHERE all(h IN history WHERE h.ts < $before) AND coalesce(n.retracted_at, 0) < $before
WITH n, [h IN history WHERE h.type IN ['memory.created', 'memory.updated']] AS folded,
     CASE WHEN c.ts = n.created_at THEN null ELSE c.ts END AS logged_at,
     c.trace_id AS trace, c.cause_id AS cause
FOREACH (h IN folded | DELETE h)
SET n.logged = null
SET n.logged_at = logged_at
SET n.log_trace = trace
SET n.log_cause = cause
RETURN count(n) AS folded
