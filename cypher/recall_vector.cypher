// Recall's vector side: the $k items nearest $vector in the vector index,
// then those live, readable and matching the filter, most similar first
// (similarity: cosine, in [-1, 1]). The index cannot filter first, so a
// selective filter may leave fewer than asked: recall then runs
// recall_vector_exact (memexd/recall/service.py).
// @params vector k limit readable
CALL db.idx.vector.queryNodes('Item', 'embedding', $k, vecf32($vector))
YIELD node, score
WITH node AS n, 1.0 - score AS similarity
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n.id AS id, similarity
ORDER BY similarity DESC, id ASC
LIMIT $limit
RETURN id, similarity
