// Filter predicate: created (UUIDv7 time, ms) at or after $value (inclusive,
// as MemEX's created.after; created.before is exclusive).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.created_at >= $value/*</pred>*/ RETURN n
