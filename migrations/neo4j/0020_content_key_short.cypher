// Content keys are the first 32 hex digits (128 bits) of their SHA-256
// (memexd.memory.records.content_key): the whole 64 took the key's index
// twice the room. Keys written before are cut to the same 32 here, in
// batches; running it again changes nothing.
MATCH (n:Item) WHERE size(n.content_key) > 32
WITH n LIMIT 20000
SET n.content_key = left(n.content_key, 32)
RETURN count(n) AS changed
