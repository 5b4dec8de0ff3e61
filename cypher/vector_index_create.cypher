// The vector index on items' embeddings (384 dimensions: the model's,
// memexd/recall/model.py), cosine similarity.
// @params
CREATE VECTOR INDEX FOR (n:Item) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine'}
