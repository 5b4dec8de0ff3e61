// Like edge_update, but the kind changes: relationship types are immutable,
// so the relationship is re-created under the new type (the slot).
// @params edge_id version props events writable
MATCH (k:EdgeKey {edge_id: $edge_id})
MATCH (a:Item {id: k.from_id})-[r]->(b:Item {id: k.to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false AND r.version = $version
  AND @writable(a) AND @writable(b)
CREATE (a)-[r2:/*<kind>*/RELATED/*</kind>*/]->(b)
SET r2 = properties(r), r2 += $props, r2.version = $version + 1, k.kind = type(r2)
DELETE r
WITH a, b, r2
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r2.edge_id AS edge_id
