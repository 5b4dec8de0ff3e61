// The item projection: every stored field an Item record is read from.
// Included as @item(x) wherever a query returns items. Its scores travel in
// exact form (shapes/exact: FalkorDB prints doubles with 15 digits).
// @shape node
MATCH (node:Item)
RETURN /*<shape>*/node {.id, .scope, .kind, .content, .author, .source_kind, .parents,
  authority: @exact(node.authority), conviction: @exact(node.conviction),
  importance: @exact(node.importance), .intent_id, .task_id, .meta, .created_at,
  .retracted, .version, .seq, .access_count, .last_accessed_at, .archived}/*</shape>*/ AS item
