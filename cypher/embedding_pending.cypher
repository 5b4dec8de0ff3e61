// Live items waiting for an embedding (labelled Unembedded when written or
// changed), oldest first, with what is embedded of them: their content and
// the version it was read at (memexd/recall/embedding.py).
// @params limit
MATCH (n:Unembedded)
WHERE n.retracted = false
WITH n
ORDER BY n.seq
LIMIT $limit
RETURN n.id AS id, n.version AS version, n.content AS content
