// Filter predicate: exact kind.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.kind = $value/*</pred>*/ RETURN n
