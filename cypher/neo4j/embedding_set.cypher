// Store the embeddings of items still at the version they were read at, and
// take them off the waiting list; an item changed since keeps waiting.
// Not a command: no event (the log replays to items, which embed again).
// @params rows model
UNWIND $rows AS row
MATCH (n:Unembedded {id: row[0]})
WHERE n.version = row[1]
CALL db.create.setNodeVectorProperty(n, 'embedding', row[2])
SET n.embedded_with = $model
REMOVE n:Unembedded
RETURN count(n) AS stored
