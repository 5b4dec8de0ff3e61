// Whether the vector index on items' embeddings exists (found > 0).
// @params
SHOW VECTOR INDEXES YIELD name
WHERE name = 'item_embedding'
RETURN count(*) AS found
