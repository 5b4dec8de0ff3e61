// What other commands did after a trace to what it touched
// (memexd/history/undo.py): for each subject ({id, seq}: an item or edge id
// and the trace's first position on it), the later events about it logged by
// other traces (or none), the later retraction its item keeps, the live
// edges touching its item that another trace made after, and the live
// children another trace gave it. Each comes as [what, id, trace, seen]:
// seen = the caller may read it (one it may not read still stops the undo,
// but is not named). (Ids are taken into plain values before a lookup:
// FalkorDB seeks an index only from a value.)
// @params subjects trace readable
UNWIND $subjects AS s
OPTIONAL MATCH (e:Event {subject: s.id})
WHERE e.seq > s.seq AND coalesce(e.trace_id, '') <> $trace
WITH s, collect(CASE WHEN e IS NULL THEN null
  ELSE [e.type, e.id, e.trace_id, @readable_event(e)] END) AS later
OPTIONAL MATCH (x:Item {id: s.id})
WITH s, later, x
OPTIONAL MATCH (x)-[r]-(:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND r.seq > s.seq
WITH s, later, x, r.edge_id AS edge_id
OPTIONAL MATCH (made:Event {subject: edge_id})
WHERE made.type = 'edge.created' AND coalesce(made.trace_id, '') <> $trace
WITH s, later, x,
  collect(DISTINCT CASE WHEN made IS NULL THEN null
    ELSE ['edge.created', edge_id, made.trace_id, @readable_event(made)] END) AS linked
OPTIONAL MATCH (x)<-[:PARENT]-(c:Item)
WHERE c.retracted = false
WITH s, later, linked, x, c, c.id AS child_id
OPTIONAL MATCH (born:Event {subject: child_id})
WHERE born.type = 'memory.created'
WITH s, later, linked, x, c, coalesce(c.log_trace, born.trace_id) AS child_trace
WITH s, later, linked, x,
  collect(DISTINCT CASE WHEN c IS NULL OR coalesce(child_trace, '') = $trace THEN null
    ELSE ['child', c.id, child_trace, @readable(c)] END) AS children
RETURN s.id AS id, later, linked, children,
  CASE WHEN x.retracted_seq > s.seq AND coalesce(x.retracted_trace, '') <> $trace
    THEN ['memory.retracted', x.id, x.retracted_trace, true] END AS retraction
