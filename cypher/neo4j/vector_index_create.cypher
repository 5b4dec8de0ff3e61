// The vector index on items' embeddings (384 dimensions: the model's,
// memexd/recall/model.py), cosine similarity.
// @params
CREATE VECTOR INDEX item_embedding IF NOT EXISTS FOR (n:Item) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
