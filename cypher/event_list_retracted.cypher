// The memory.retracted events logged after one log position and up to
// another that are kept on their items (item_retract: a retracted item never
// changes again, so it holds its event: docs/events.md, "Storage"), in commit
// order, filtered as event_list (which reads the event nodes).
// @params after upto namespaces types scope_prefix item_ids limit readable
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
RETURN @item(n) AS item, n.retracted_event AS id, n.retracted_seq AS seq,
  n.retracted_at AS ts, n.retracted_by AS author, n.retracted_reason AS reason,
  n.retracted_trace AS trace_id, n.retracted_cause AS cause_id
