// The edge projection: a typed edge with its kind (the relationship type) and
// its endpoints' ids; its numbers in exact form (shapes/exact).
// Included as @edge(r, a, b) wherever a query returns edges.
// @shape rel src dst
MATCH (src:Item)-[rel]->(dst:Item)
RETURN /*<shape>*/rel {.edge_id, weight: @exact(rel.weight), .author, .source_kind,
  authority: @exact(rel.authority), .active, .meta, .version, .seq, kind: type(rel),
  from_id: src.id, to_id: dst.id}/*</shape>*/ AS edge
