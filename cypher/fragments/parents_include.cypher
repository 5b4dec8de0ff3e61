// Filter predicate: lists $value among its parents.
// @params value
MATCH (n:Item) WHERE /*<pred>*/$value IN n.parents/*</pred>*/ RETURN n
