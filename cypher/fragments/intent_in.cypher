// Filter predicate: produced by one of these intents.
// @params values
MATCH (n:Item) WHERE /*<pred>*/n.intent_id IN $values/*</pred>*/ RETURN n
