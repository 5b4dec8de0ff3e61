// Drop the vector index on items' embeddings (the embeddings stay on items).
// @params
DROP INDEX item_embedding IF EXISTS
