// Every relationship with its type, properties and endpoint keys (tests).
MATCH (a)-[r]->(b)
RETURN type(r) AS type, properties(r) AS props,
       coalesce(a.id, a.edge_id, a.name) AS start, coalesce(b.id, b.edge_id, b.name) AS end
