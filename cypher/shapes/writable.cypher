// The write grant: whether the caller may change an item (its scope starts
// with one of the caller's write prefixes; the graph fills $writable).
// Included as @writable(n) in every statement that changes items or edges.
// The list names the node for the reason given in readable.cypher.
// @params writable
// @shape node
MATCH (node:Item)
WHERE /*<shape>*/any(write_prefix IN CASE WHEN node IS NULL THEN [] ELSE $writable END
  WHERE node.scope STARTS WITH write_prefix)/*</shape>*/
RETURN node
