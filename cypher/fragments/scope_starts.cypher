// Filter predicate: scope starts with $value, checked on each candidate: for
// a prefix AND-ed with a selective indexed equality (memexd/memory/filters.py),
// where walking the prefix's index range would cost more than it saves.
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.scope STARTS WITH $value/*</pred>*/ RETURN n
