// The item projection: every stored field an Item record is read from.
// Included as @item(x) wherever a query returns items; `exact` carries its
// scores to the last digit (shapes/exact).
// @shape node
MATCH (node:Item)
RETURN /*<shape>*/node {.id, .scope, .kind, .content, .author, .source_kind, .parents,
  .authority, .conviction, .importance, .intent_id, .task_id, .meta, .created_at,
  .retracted, .version, .seq,
  exact: [@exact(node.authority), @exact(node.conviction), @exact(node.importance)]}/*</shape>*/ AS item
