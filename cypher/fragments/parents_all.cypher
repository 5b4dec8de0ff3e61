// Filter predicate: lists every one of $values as a parent (an empty list:
// every item, as MemEX's all()).
// @params values
MATCH (n:Item) WHERE /*<pred>*/all(p IN $values WHERE p IN coalesce(n.parents, []))/*</pred>*/ RETURN n
