// Filter predicate: conviction at least $value; an item without one does not
// match (MemEX's range: a missing score is outside every range).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.conviction >= $value/*</pred>*/ RETURN n
