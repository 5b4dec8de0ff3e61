// Readable tasks that read or wrote one of the given live items, along their
// READS / WROTE links (input_memory_ids / output_memory_ids, mirrored):
// MemEX's tasks related through memories.
// @params ids readable
UNWIND $ids AS id
MATCH (m:Item {id: id})<-[:READS|WROTE]-(n:Task)
WHERE m.retracted = false AND @readable(m) AND @readable(n)
RETURN DISTINCT n.id AS id
