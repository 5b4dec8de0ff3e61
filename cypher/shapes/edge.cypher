// The edge projection: a typed edge with its kind (the relationship type), its
// endpoints' ids, and `exact`: its numbers to the last digit (shapes/exact).
// Included as @edge(r, a, b) wherever a query returns edges.
// @shape rel src dst
MATCH (src:Item)-[rel]->(dst:Item)
RETURN /*<shape>*/rel {.edge_id, .weight, .author, .source_kind, .authority, .active,
  .meta, .version, .seq, kind: type(rel), from_id: src.id, to_id: dst.id,
  exact: [@exact(rel.authority), @exact(rel.weight)]}/*</shape>*/ AS edge
