// The write grant: whether the caller may change an item (its scope starts
// with one of the caller's write prefixes; the graph fills $writable).
// Included as @writable(n) in every statement that changes items or edges.
// The predicate is writable_scope's, on the node's scope (which names the
// node in the list, for the reason given in readable.cypher).
// @params writable
// @shape node
MATCH (node:Item)
WHERE /*<shape>*/@writable_scope(node.scope)/*</shape>*/
RETURN node
