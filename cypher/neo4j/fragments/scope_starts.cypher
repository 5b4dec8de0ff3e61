// Filter predicate: scope starts with $value, checked on each candidate
// (memexd/memory/filters.py): in a narrow band of a sorted top-k, or beside a
// selective indexed equality. Neo4j's range index answers STARTS WITH, and
// its planner reads a wide prefix (every item under "org/acme/") rather than
// the band; this form no index answers, so the band's index serves.
// @params value
MATCH (n:Item) WHERE /*<pred>*/left(n.scope, size($value)) = $value/*</pred>*/ RETURN n
