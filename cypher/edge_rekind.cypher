// Like edge_update, but the kind changes: relationship types are immutable,
// so the relationship is re-created under the new type (the slot).
// (EdgeKey's ends are taken into plain values first: FalkorDB looks a node up
// by index only from a value, not from another node's property.)
// @params edge_id version props events writable
MATCH (k:EdgeKey {edge_id: $edge_id})
WITH k, k.from_id AS from_id, k.to_id AS to_id
MATCH (a:Item {id: from_id})-[r]->(b:Item {id: to_id})
WHERE r.edge_id = $edge_id AND r.retracted = false AND r.version = $version
  AND @writable(a) AND @writable(b)
CREATE (a)-[r2:/*<kind>*/RELATED/*</kind>*/]->(b)
SET r2 = properties(r), r2 += $props, r2.version = $version + 1, k.kind = type(r2)
DELETE r
WITH a, b, r2
@log_events($events, a.scope, [a.scope, b.scope])
RETURN r2.edge_id AS edge_id
