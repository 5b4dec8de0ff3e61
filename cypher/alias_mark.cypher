// Record that two live items are the same thing: an ALIAS edge each way, each
// created only if no active one exists already (marking twice is harmless),
// with its EdgeKey and edge.created event, in the order given (spec.ord: a→b
// first, as MemEX). No row: an item is missing.
// @params a b edges writable
MATCH (x:Item {id: $a})
WHERE x.retracted = false AND @writable(x)
MATCH (y:Item {id: $b})
WHERE y.retracted = false AND @writable(y)
CALL {
  WITH x, y
  UNWIND $edges AS spec
  MATCH (f:Item {id: spec.from})
  MATCH (t:Item {id: spec.to})
  OPTIONAL MATCH (f)-[old:ALIAS]->(t)
  WHERE old.active = true AND old.retracted = false
  WITH spec, f, t, count(old) AS existing
  WHERE existing = 0
  CREATE (f)-[r:ALIAS]->(t)
  SET r = spec.props
  CREATE (k:EdgeKey)
  SET k = spec.key
  WITH spec, f, t
  ORDER BY spec.ord
  RETURN collect(spec) AS made, collect([f.scope, t.scope]) AS scopes
}
WITH made, scopes
@log_events([spec IN made | spec.event], scopes[log_i][0], scopes[log_i])
RETURN [s IN made | s.key.edge_id] AS created
