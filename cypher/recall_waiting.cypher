// Recall's freshest items: live items waiting for their embedding that the
// caller can read and that match the filter, newest first, with what is
// embedded of them (memexd/recall/fresh.py). At most $scan waiting items
// are looked at (in the engine's order), so a bulk ingest's backlog costs a
// recall $scan rows, not the backlog.
// @params scan limit readable
MATCH (n:Unembedded)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n
LIMIT $scan
WITH n
ORDER BY n.seq DESC
LIMIT $limit
RETURN n.id AS id, n.version AS version, n.content AS content
