// Filter predicate: scope starts with $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.scope STARTS WITH $value/*</pred>*/ RETURN n
