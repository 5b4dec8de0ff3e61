// Store callers' own vectors on live items they may write ($rows: [id,
// vector]), all or none: no row back when an id is missing, retracted or
// not the caller's to write. Marked as the caller's (embedded_with
// 'caller'), so `memexd embed --all` keeps them; a later content change
// puts the item back on the waiting list for the model. No event, as for
// the model's vectors.
// @params rows writable
UNWIND $rows AS row
OPTIONAL MATCH (n:Item {id: row[0]})
WHERE n.retracted = false AND @writable(n)
WITH collect(n) AS found
WHERE size(found) = size($rows)
UNWIND range(0, size($rows) - 1) AS i
WITH found[i] AS n, $rows[i][1] AS vector
CALL db.create.setNodeVectorProperty(n, 'embedding', vector)
SET n.embedded_with = 'caller'
REMOVE n:Unembedded
RETURN n.id AS id
