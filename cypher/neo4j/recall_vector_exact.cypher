// Recall's vector side when a filter is too selective for the index: every
// live, readable, embedded item matching the filter (at most $scan of them,
// newest first), compared with $vector one by one, most similar first.
// @params vector scan limit readable
MATCH (n:Item)
WHERE n.retracted = false AND n.embedding IS NOT NULL AND @readable(n)
  AND (/*<filter>*/true/*</filter>*/)
WITH n
ORDER BY n.seq DESC
LIMIT $scan
WITH n.id AS id, 2.0 * vector.similarity.cosine(n.embedding, $vector) - 1.0 AS similarity
ORDER BY similarity DESC, id ASC
LIMIT $limit
RETURN id, similarity
