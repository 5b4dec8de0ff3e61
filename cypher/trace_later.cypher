// What other commands did after a trace to what it touched
// (memexd/history/undo.py): for each subject ({id, seq, created}: an item or
// edge id, the trace's first position on it, and whether the trace created
// it), the later events about it logged by other traces (or none), the later
// retraction its item keeps, and, for an item the trace created, the live
// children another trace gave it. (Edges another trace linked to such an item
// are in its retraction plan.) Each comes as [what, id, trace, seen]: seen =
// the caller may read it (one it may not read still stops the undo, but is
// not named). (Ids are taken into plain values before a lookup: FalkorDB
// seeks an index only from a value.)
// @params subjects trace readable
UNWIND $subjects AS subject
WITH subject.id AS id, subject.seq AS seq, subject.created AS created
OPTIONAL MATCH (e:Event {subject: id})
WHERE e.seq > seq AND coalesce(e.trace_id, '') <> $trace
WITH id, seq, created, collect(CASE WHEN e IS NULL THEN null
  ELSE [e.type, e.id, e.trace_id, @readable_event(e)] END) AS later
OPTIONAL MATCH (x:Item {id: id})
WITH id, seq, created, later, x
OPTIONAL MATCH (x)<-[:PARENT]-(c:Item)
WHERE created AND c.retracted = false
WITH id, seq, later, x, c, c.id AS child_id
OPTIONAL MATCH (born:Event {subject: child_id})
WHERE born.type = 'memory.created'
WITH id, seq, later, x, c, coalesce(c.log_trace, born.trace_id) AS child_trace
WITH id, seq, later, x,
  collect(DISTINCT CASE WHEN c IS NULL OR coalesce(child_trace, '') = $trace THEN null
    ELSE ['child', c.id, child_trace, @readable(c)] END) AS children
RETURN id, later, children,
  CASE WHEN x.retracted_seq > seq AND coalesce(x.retracted_trace, '') <> $trace
    THEN ['memory.retracted', x.id, x.retracted_trace, true] END AS retraction
