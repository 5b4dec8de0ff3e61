// Whether an edge id was ever used (retracted edges keep their key).
// @params edge_id
MATCH (k:EdgeKey {edge_id: $edge_id})
RETURN k.edge_id AS edge_id
