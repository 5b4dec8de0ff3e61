// The vector index on items' embeddings (384 dimensions: the model's,
// memexd/recall/model.py), cosine similarity. HNSW with 16 links a node and
// 100 candidates while inserting (FalkorDB's default is 200): on 20,000 note
// vectors the same share of the exact nearest 10 and 50 (0.970, 0.996) for
// a fifth less time an insert (bench/vector_index_params.py).
// @params
CREATE VECTOR INDEX FOR (n:Item) ON (n.embedding) OPTIONS {dimension: 384, similarityFunction: 'cosine', M: 16, efConstruction: 100}
