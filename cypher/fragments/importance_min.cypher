// Filter predicate: importance (missing counts as 0) at least $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/coalesce(n.importance, 0.0) >= $value/*</pred>*/ RETURN n
