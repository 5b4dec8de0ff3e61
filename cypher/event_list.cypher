// Event nodes logged after one log position and up to another, in commit
// order, optionally filtered (the event log query and the live feed's reads;
// event_list_kept reads the events kept on their items: docs/events.md,
// "Storage").
// An event matches a scope prefix when any scope it tells about does (an
// edge event tells about both ends), and an item id when it is about that
// item (an item event: the item; an edge event: both ends). Every event
// read is one the caller may read: all of its scopes.
// @params after upto namespaces types scope_prefix item_ids limit readable
MATCH (e:Event)
WHERE e.seq > $after AND e.seq <= $upto
  AND ($namespaces IS NULL OR e.namespace IN $namespaces)
  AND ($types IS NULL OR e.type IN $types)
  AND ($scope_prefix IS NULL OR any(s IN e.scopes WHERE s STARTS WITH $scope_prefix))
  AND ($item_ids IS NULL OR any(i IN e.item_ids WHERE i IN $item_ids))
  AND @readable_event(e)
WITH e
ORDER BY e.seq
LIMIT $limit
RETURN @event(e) AS event, e.seq AS seq
