// Which of these items the caller may store a vector on: live, and theirs
// to write (embedding_own refused a batch: which id was it?).
// @params ids writable
MATCH (n:Item)
WHERE n.id IN $ids AND n.retracted = false AND @writable(n)
RETURN n.id AS id
