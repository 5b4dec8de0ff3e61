// What a trace did (memexd/history/undo.py): its events, in log order, as
// type, subject (item or edge id) and position: the event nodes it logged,
// and the memory.created / memory.retracted events items keep. At most
// $limit from each part. Under the caller's grants: an event it may not read
// is counted apart (hidden), never shown.
// @params trace limit readable
MATCH (e:Event)
WHERE e.trace_id = $trace
WITH e
LIMIT $limit
RETURN e.type AS type, e.subject AS subject, e.seq AS seq, @readable_event(e) AS seen
UNION ALL
MATCH (n:Item)
WHERE n.log_trace = $trace
WITH n
LIMIT $limit
RETURN 'memory.created' AS type, n.id AS subject, n.seq AS seq, @readable(n) AS seen
UNION ALL
MATCH (n:Item)
WHERE n.retracted_trace = $trace
WITH n
LIMIT $limit
RETURN 'memory.retracted' AS type, n.id AS subject, n.retracted_seq AS seq,
  @readable(n) AS seen
