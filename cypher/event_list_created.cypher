// The memory.created events logged after one log position and up to another
// that are not nodes of their own (their items are as created: the item node
// is the record, docs/events.md "Storage"), in commit order, filtered as
// event_list (which reads the rest). An item's event is at its seq; its time
// is logged_at, or the item's created_at when not kept.
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
RETURN @item(n) AS item, n.logged_at AS ts, n.log_trace AS trace_id, n.log_cause AS cause_id,
  n.seq AS seq
