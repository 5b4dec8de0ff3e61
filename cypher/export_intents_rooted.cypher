// Readable intents whose root_memory_ids name one of the given live items,
// along their ROOT links (the list, mirrored): MemEX's related intents.
// @params ids readable
UNWIND $ids AS id
MATCH (m:Item {id: id})<-[:ROOT]-(n:Intent)
WHERE m.retracted = false AND @readable(m) AND @readable(n)
RETURN DISTINCT n.id AS id
