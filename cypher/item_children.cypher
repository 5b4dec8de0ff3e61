// Live children of each given item, one row per parent id.
// @params ids
UNWIND $ids AS id
MATCH (p:Item {id: id})<-[:PARENT]-(c:Item)
WHERE c.retracted = false
WITH DISTINCT id, c
ORDER BY c.id
RETURN id, collect(c {.id, .scope, .kind, .content, .author, .source_kind, .parents,
          .authority, .conviction, .importance, .intent_id, .task_id, .meta, .created_at,
          .retracted, .version}) AS children
