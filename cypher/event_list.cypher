// Events after a log position, in commit order, optionally filtered.
// @params after namespaces types scope_prefix limit readable
MATCH (e:Event)
WHERE e.seq > $after
  AND ($namespaces IS NULL OR e.namespace IN $namespaces)
  AND ($types IS NULL OR e.type IN $types)
  AND ($scope_prefix IS NULL OR e.scope STARTS WITH $scope_prefix)
  AND @readable_event(e)
WITH e
ORDER BY e.seq
LIMIT $limit
RETURN @event(e) AS event
