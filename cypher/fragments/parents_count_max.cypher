// Filter predicate: at most $value parents.
// @params value
MATCH (n:Item) WHERE /*<pred>*/size(n.parents) <= $value/*</pred>*/ RETURN n
