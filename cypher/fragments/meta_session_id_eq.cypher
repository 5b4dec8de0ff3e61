// Filter predicate: meta.session_id equals $value, through its index
// (migration 0008; memexd/memory/filters.py picks it for this key).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.`meta.session_id` = $value/*</pred>*/ RETURN n
