// Whether the caller may store a vector on this item: live, and theirs to
// write (embedding_own refused a batch: which id was it?).
// @params id writable
MATCH (n:Item {id: $id})
WHERE n.retracted = false AND @writable(n)
RETURN n.id AS id
