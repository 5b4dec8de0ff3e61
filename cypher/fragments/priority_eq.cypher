// Filter predicate: the item's priority is $value (indexed, migration 0013).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.priority = $value/*</pred>*/ RETURN n
