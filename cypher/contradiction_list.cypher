// Active contradictions between live items, with both items and the edge.
// @params limit
MATCH (a:Item)-[r:CONTRADICTS]->(b:Item)
WHERE r.active = true AND r.retracted = false AND a.retracted = false AND b.retracted = false
WITH a, r, b
ORDER BY r.edge_id
LIMIT $limit
RETURN a {.id, .scope, .kind, .content, .author, .source_kind, .parents, .authority,
          .conviction, .importance, .intent_id, .task_id, .meta, .created_at, .retracted,
          .version} AS a,
       b {.id, .scope, .kind, .content, .author, .source_kind, .parents, .authority,
          .conviction, .importance, .intent_id, .task_id, .meta, .created_at, .retracted,
          .version} AS b,
       r {.edge_id, .weight, .author, .source_kind, .authority, .active, .meta, .version,
          kind: type(r), from_id: a.id, to_id: b.id} AS edge
