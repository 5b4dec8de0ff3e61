// Filter predicate: exact scope.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.scope = $value/*</pred>*/ RETURN n
