// Filter predicate: scope starts with $value, a prefix that is one whole
// root and its '/' ("tenant:t1/"): every such scope has the root $root.
// Neo4j answers one predicate per index, and could pick the scope range
// (every scope under the root: a tenant's 10,000 items at 1M, read to keep a
// band of ten: 52 ms) over the root with the sort key
// (migrations/neo4j/0019: 2 ms). The prefix is checked on the root's items
// instead, in a form no index answers; the root's '/' is all it adds.
// @params value root
MATCH (n:Item) WHERE /*<pred>*/n.scope_root = $root AND left(n.scope, size($value)) = $value/*</pred>*/ RETURN n
