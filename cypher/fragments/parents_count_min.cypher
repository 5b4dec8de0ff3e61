// Filter predicate: at least $value parents (an item created without a
// parents list has none).
// @params value
MATCH (n:Item) WHERE /*<pred>*/size(coalesce(n.parents, [])) >= $value/*</pred>*/ RETURN n
