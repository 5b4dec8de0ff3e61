// Filter predicate: produced by this intent.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.intent_id = $value/*</pred>*/ RETURN n
