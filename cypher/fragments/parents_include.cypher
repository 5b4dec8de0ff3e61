// Filter predicate: lists $value among its parents.
// @params value
MATCH (n:Item) WHERE /*<pred>*/$value IN coalesce(n.parents, [])/*</pred>*/ RETURN n
