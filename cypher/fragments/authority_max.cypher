// Filter predicate: authority at most $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.authority <= $value/*</pred>*/ RETURN n
