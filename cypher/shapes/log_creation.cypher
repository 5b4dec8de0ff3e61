// Make an item's memory.created event a node of its own, before the item
// changes: while an item is as created its event is not stored apart (the
// node is the record, docs/events.md "Storage"), and a change would lose it.
// `created` holds the event's stored properties as the caller read the item
// (vocabulary.creation_record; the statement's version check makes that read
// current); its position, time, trace and cause move over from the node.
// Does nothing for an item whose event is already a node (logged).
// Included where the statement binds the item, once per item, e.g. as
// at-sign log_creation(n, $created).
// @shape node created
MATCH (node:Item)
WITH node, {} AS created
/*<shape>*/FOREACH (_ IN CASE WHEN node.logged IS NULL THEN [1] ELSE [] END |
  CREATE (log_c:Event)
  SET log_c = created, log_c.seq = node.seq,
      log_c.ts = coalesce(node.logged_at, node.created_at),
      log_c.trace_id = node.log_trace, log_c.cause_id = node.log_cause)
SET node.logged = true
SET node.logged_at = null
SET node.log_trace = null
SET node.log_cause = null/*</shape>*/
RETURN node
