// Filter predicate: scope starts with $value, for a prefix without an upper
// bound in every engine's string order (see scope_prefix): index range from
// $value up.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.scope >= $value AND n.scope STARTS WITH $value/*</pred>*/ RETURN n
