// Edges by id through their EdgeKey; retracted edges are gone.
// (EdgeKey's ends are taken into plain values first: FalkorDB looks a node up
// by index only from a value, not from another node's property.)
// @params ids readable writable
UNWIND $ids AS id
MATCH (k:EdgeKey {edge_id: id})
WITH id, k.from_id AS from_id, k.to_id AS to_id
MATCH (a:Item {id: from_id})-[r]->(b:Item {id: to_id})
WHERE r.edge_id = id AND r.retracted = false AND @readable(a) AND @readable(b)
RETURN @edge(r, a, b) AS edge, @writable(a) AND @writable(b) AS writable
