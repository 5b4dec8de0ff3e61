// Retract an item and keep its memory.retracted event on it (a retracted
// item never changes again: docs/events.md, "Storage"): the event's id, its
// position (its place `at` among the command's events, after log_base from
// @log_lock) and `marks`, what every retraction of the command shares (time,
// author, reason, trace, cause: vocabulary.retraction_marks).
// Included where the statement binds the item, once per item, e.g. as
// at-sign log_retracted(n, event_id, at, $marks).
// @shape node event_id at marks
MATCH (node:Item)
WITH node, '' AS event_id, 0 AS at, 0 AS log_base, {} AS marks
/*<shape>*/SET node += marks, node.retracted = true, node.version = node.version + 1,
    node.retracted_event = event_id, node.retracted_seq = log_base + at + 1/*</shape>*/
RETURN node
