// Filter predicate: exact source kind.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.source_kind = $value/*</pred>*/ RETURN n
