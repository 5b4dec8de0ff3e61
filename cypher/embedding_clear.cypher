// Clear the old vectors of waiting items about to get new ones (still at the
// version they were read at), in a statement of their own before
// cypher/embedding_set: FalkorDB leaves a vector set over another as it was,
// in the property and in its index (its issue 2099; a vector set where
// none is, or after one cleared by an earlier statement, is stored). Until
// the new vector lands, recall embeds the waiting item itself
// (memexd/recall/fresh.py). Found by Item's id index, as embedding_set.
// @params rows
UNWIND $rows AS row
MATCH (n:Item {id: row[0]})
WHERE n:Unembedded AND n.version = row[1] AND n.embedding IS NOT NULL
SET n.embedding = null
RETURN count(n) AS cleared
