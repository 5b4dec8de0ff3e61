// Filter predicate: lists at least one of $values as a parent.
// @params values
MATCH (n:Item) WHERE /*<pred>*/any(p IN coalesce(n.parents, []) WHERE p IN $values)/*</pred>*/ RETURN n
