// Drop the vector index on items' embeddings (the embeddings stay on items).
// @params
DROP VECTOR INDEX FOR (n:Item) ON (n.embedding)
