// Filter predicate: meta.agent_id equals $value, through its index
// (migration 0008; memexd/memory/filters.py picks it for this key).
// @params value
MATCH (n:Item) WHERE /*<pred>*/n.`meta.agent_id` = $value/*</pred>*/ RETURN n
