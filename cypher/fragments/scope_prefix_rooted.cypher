// Filter predicate: scope starts with $value, a prefix that is one whole
// root and its '/' ("tenant:t1/"): every such scope has the root $root, one
// value of the scope_root index, where the scope range would be the union of
// every scope under the root (memexd/memory/filters.py).
// @params value root
MATCH (n:Item) WHERE /*<pred>*/n.scope_root = $root AND n.scope STARTS WITH $value/*</pred>*/ RETURN n
