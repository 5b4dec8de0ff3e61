// The events logged after one log position and up to another that are kept
// on their items, not as nodes (docs/events.md, "Storage"), in commit order,
// filtered as event_list (which reads the event nodes): an item's
// memory.created event while the item is as created (at its seq; its time is
// logged_at, or the item's created_at when not kept), and a retracted item's
// memory.retracted event (at retracted_seq; its cause_type is memory.retract
// unless the item kept another, an undo's). Each part is limited alone; the
// caller merges them by position.
// @params after upto namespaces types scope_prefix item_ids limit readable
MATCH (n:Item)
WHERE n.seq > $after AND n.seq <= $upto AND n.logged IS NULL
  AND ($namespaces IS NULL OR 'memory' IN $namespaces)
  AND ($types IS NULL OR 'memory.created' IN $types)
  AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  AND ($item_ids IS NULL OR n.id IN $item_ids)
  AND @readable(n)
WITH n
ORDER BY n.seq
LIMIT $limit
RETURN 'memory.created' AS type, @item(n) AS item, n.seq AS seq, null AS id,
  n.logged_at AS ts, null AS author, null AS reason, n.log_trace AS trace_id,
  n.log_cause AS cause_id, null AS cause_type
UNION ALL
MATCH (n:Item)
WHERE n.retracted_seq > $after AND n.retracted_seq <= $upto
  AND ($namespaces IS NULL OR 'memory' IN $namespaces)
  AND ($types IS NULL OR 'memory.retracted' IN $types)
  AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  AND ($item_ids IS NULL OR n.id IN $item_ids)
  AND @readable(n)
WITH n
ORDER BY n.retracted_seq
LIMIT $limit
RETURN 'memory.retracted' AS type, @item(n) AS item, n.retracted_seq AS seq,
  n.retracted_event AS id, n.retracted_at AS ts, n.retracted_by AS author,
  n.retracted_reason AS reason, n.retracted_trace AS trace_id, n.retracted_cause AS cause_id,
  n.retracted_cause_type AS cause_type
