// Edges by id through their EdgeKey; retracted edges are gone.
// @params ids readable writable
UNWIND $ids AS id
MATCH (k:EdgeKey {edge_id: id})
MATCH (a:Item {id: k.from_id})-[r]->(b:Item {id: k.to_id})
WHERE r.edge_id = id AND r.retracted = false AND @readable(a) AND @readable(b)
RETURN @edge(r, a, b) AS edge, @writable(a) AND @writable(b) AS writable
