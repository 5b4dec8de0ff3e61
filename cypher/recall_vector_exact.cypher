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
WITH n.id AS id, 1.0 - vec.cosineDistance(n.embedding, vecf32($vector)) AS similarity
ORDER BY similarity DESC, id ASC
LIMIT $limit
RETURN id, similarity
