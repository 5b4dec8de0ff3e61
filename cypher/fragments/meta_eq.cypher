// Filter predicate: the flattened meta property $key equals $value.
// @params key value
MATCH (n:Item) WHERE /*<pred>*/n[$key] = $value/*</pred>*/ RETURN n
