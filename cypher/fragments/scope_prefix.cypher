// Filter predicate: scope starts with $value. The range around it lets the
// scope index serve the filter (STARTS WITH alone scans every item on
// FalkorDB): every scope starting with $value sorts at or after it and
// before $below, $value with its last character moved one up
// (memexd/memory/filters.py; scope_prefix_open where there is no such bound).
// @params value below
MATCH (n:Item) WHERE /*<pred>*/n.scope >= $value AND n.scope < $below AND n.scope STARTS WITH $value/*</pred>*/ RETURN n
