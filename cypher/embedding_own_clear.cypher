// Clear the old vectors of the items a caller sends its own for, before
// cypher/embedding_own stores them (why: cypher/embedding_clear). All or
// none, as embedding_own: nothing is cleared unless every item is live and
// writable by the caller. A cleared item waits for an embedding again
// (Unembedded) until embedding_own stores the caller's, so a call that
// fails between the two statements leaves it to the embedding loop.
// @params rows writable
UNWIND $rows AS row
OPTIONAL MATCH (n:Item {id: row[0]})
WHERE n.retracted = false AND @writable(n)
WITH collect(n) AS found
WHERE size(found) = size($rows)
UNWIND found AS n
WITH n
WHERE n.embedding IS NOT NULL
SET n.embedding = null, n:Unembedded
RETURN count(n) AS cleared
