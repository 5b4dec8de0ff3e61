// Filter predicate: importance at most $value; an item without one does not
// match (MemEX's range: a missing score is outside every range).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.importance <= $value/*</pred>*/ RETURN n
