// Filter predicate: the item's lifecycle tier is $value (indexed, migration 0013).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.lifecycle = $value/*</pred>*/ RETURN n
