// Store the embeddings of items still at the version they were read at, and
// take them off the waiting list; an item changed since keeps waiting.
// Not a command: no event (the log replays to items, which embed again).
// Found by Item's id index: a match on the Unembedded label reads every
// waiting item for each row (0.5 s a batch with 100,000 waiting, holding the
// engine's writer).
// @params rows model
UNWIND $rows AS row
MATCH (n:Item {id: row[0]})
WHERE n:Unembedded AND n.version = row[1]
CALL db.create.setNodeVectorProperty(n, 'embedding', row[2])
SET n.embedded_with = $model
REMOVE n:Unembedded
RETURN count(n) AS stored
