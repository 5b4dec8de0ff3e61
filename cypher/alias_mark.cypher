// Record that two live items are the same thing: an ALIAS edge each way,
// with its EdgeKey and edge.created event, in the order given (spec.ord: a→b
// first, as MemEX), seq in that order. Like MemEX, marking twice adds two
// more edges; with $skip_existing a direction that already has an active
// ALIAS edge is left alone. No row: an item is missing.
// @params a b edges skip_existing writable
MATCH (x:Item {id: $a})
WHERE x.retracted = false AND @writable(x)
MATCH (y:Item {id: $b})
WHERE y.retracted = false AND @writable(y)
MATCH (counter:Counter {name: 'event'})
CALL {
  WITH x, y, counter
  UNWIND $edges AS spec
  MATCH (f:Item {id: spec.from})
  MATCH (t:Item {id: spec.to})
  OPTIONAL MATCH (f)-[old:ALIAS]->(t)
  WHERE old.active = true AND old.retracted = false
  WITH spec, f, t, counter, count(old) AS existing
  WHERE existing = 0 OR NOT $skip_existing
  CREATE (f)-[r:ALIAS]->(t)
  SET r = spec.props, r.seq = counter.value + spec.ord + 1
  CREATE (k:EdgeKey)
  SET k = spec.key
  WITH spec, f, t
  ORDER BY spec.ord
  RETURN collect(spec) AS made, collect([f.scope, t.scope]) AS scopes
}
WITH made, scopes
@log_events([spec IN made | spec.event], scopes[log_i][0], scopes[log_i])
RETURN [s IN made | s.key.edge_id] AS created
