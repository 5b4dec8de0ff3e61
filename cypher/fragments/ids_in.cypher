// Filter predicate: the item id is one of $values.
// @params values
MATCH (n:Item) WHERE /*<pred>*/n.id IN $values/*</pred>*/ RETURN n
