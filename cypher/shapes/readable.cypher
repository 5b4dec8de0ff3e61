// The read grant: whether the caller may see an item (its scope starts with
// one of the caller's read prefixes; the graph fills $readable). Included as
// @readable(n) in every query that returns, counts or walks through items;
// an item outside it does not exist for the caller.
// The list names the node on purpose: FalkorDB 4.16 evaluates a predicate
// over a parameter list without the row's variables after a WITH (the node
// reads as null and nothing matches); a list that uses them keeps the row.
// @params readable
// @shape node
MATCH (node:Item)
WHERE /*<shape>*/any(read_prefix IN CASE WHEN node IS NULL THEN [] ELSE $readable END
  WHERE node.scope STARTS WITH read_prefix)/*</shape>*/
RETURN node
