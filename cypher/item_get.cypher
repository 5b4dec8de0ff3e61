// Items by id, in no particular order; retracted ones only when asked.
// @params ids include_retracted
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE $include_retracted OR n.retracted = false
RETURN n {.id, .scope, .kind, .content, .author, .source_kind, .parents, .authority,
          .conviction, .importance, .intent_id, .task_id, .meta, .created_at, .retracted,
          .version} AS item
