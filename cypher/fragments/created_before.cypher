// Filter predicate: created (UUIDv7 time, ms) strictly before $value.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.created_at < $value/*</pred>*/ RETURN n
