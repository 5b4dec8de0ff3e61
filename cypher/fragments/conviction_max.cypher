// Filter predicate: conviction (missing counts as 0) at most $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/coalesce(n.conviction, 0.0) <= $value/*</pred>*/ RETURN n
