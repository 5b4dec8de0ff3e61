// Filter predicate: lists every one of $values as a parent.
// @params values
MATCH (n:Item) WHERE /*<pred>*/all(p IN $values WHERE p IN n.parents)/*</pred>*/ RETURN n
