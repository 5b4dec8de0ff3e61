// Filter predicate: authority at least $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.authority >= $value/*</pred>*/ RETURN n
