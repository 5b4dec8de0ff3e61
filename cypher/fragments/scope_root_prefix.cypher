// Filter predicate: scope starts with $value, a prefix without '/': the
// root of every such scope starts with $value too, so the scope_root index
// serves it as a range over the few roots from $value up to $below
// (memexd/memory/filters.py; the scope range would span every scope).
// @params value below
MATCH (n:Item) WHERE /*<pred>*/n.scope_root >= $value AND n.scope_root < $below AND n.scope STARTS WITH $value/*</pred>*/ RETURN n
