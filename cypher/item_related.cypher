// Live items joined to one item by active edges in a direction (the slot).
// @params id
MATCH (x:Item {id: $id})/*<pattern>*/-[r]-/*</pattern>*/(y:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND r.active
  AND y.retracted = false
WITH DISTINCT y
ORDER BY y.id
RETURN y {.id, .scope, .kind, .content, .author, .source_kind, .parents, .authority,
          .conviction, .importance, .intent_id, .task_id, .meta, .created_at, .retracted,
          .version} AS item
