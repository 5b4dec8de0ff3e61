// Whether the vector index on items' embeddings exists (found > 0).
// @params
CALL db.indexes() YIELD label, properties, types
WITH label, properties, types
WHERE label = 'Item' AND 'embedding' IN properties AND 'VECTOR' IN types['embedding']
RETURN count(*) AS found
