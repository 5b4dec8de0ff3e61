// What retracting these live items takes with them: each item as it is (for
// the memory.retracted payload and its version), and every live typed edge
// touching it, with the scopes of both ends (MemEX retracts an item's edges,
// whatever their kind or state). The far end of an edge is not granted: an
// edge to an item the caller cannot read still goes, but its event is only
// shown to callers who can read both ends.
// @params ids readable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n)
CALL {
  WITH n
  OPTIONAL MATCH (n)-[r]->(o:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  RETURN collect(CASE WHEN r IS NULL THEN null
    ELSE {edge: @edge(r, n, o), scopes: [n.scope, o.scope]} END) AS outgoing
}
CALL {
  WITH n
  OPTIONAL MATCH (n)<-[r]-(o:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  RETURN collect(CASE WHEN r IS NULL THEN null
    ELSE {edge: @edge(r, o, n), scopes: [o.scope, n.scope]} END) AS incoming
}
RETURN @item(n) AS item, outgoing + incoming AS edges
