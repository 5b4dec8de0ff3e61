// Live items waiting for an embedding (labelled Unembedded when written or
// changed), with what is embedded of them: their content and the version it
// was read at (memexd/recall/embedding.py). In the engine's own order (by
// internal node id, which roughly follows creation), not sorted: a sort reads
// every waiting item for each batch of $limit, and after a bulk ingest or
// `memexd embed --all` that is every item, each time. $skip: the ids of the
// batch whose vectors are being stored meanwhile (still labelled).
// @params limit skip
MATCH (n:Unembedded)
WHERE n.retracted = false AND NOT n.id IN $skip
RETURN n.id AS id, n.version AS version, n.content AS content
LIMIT $limit
