// A new item node's properties from its positional row (the columns of
// memexd.memory.creation.COLUMNS) and its other flattened meta (`extra`):
// every statement that creates items (item_create, item_promote) sets them
// here, so they store the same node. Kinds and scope roots, which many items
// share, are stored once (@interned). The id key comes in the row, computed
// in Python (memexd.ids.id_key): computed here, it cost FalkorDB 13 µs an
// item, half again its raw write.
// Included right after the CREATE, as at-sign item_node(n, r, $extras[i]).
// @shape node row extra
MATCH (node:Item)
WITH node, [] AS row, {} AS extra
/*<shape>*/SET node = {id: row[0], scope: row[1], scope_root: @scope_root(row[1]),
         kind: @interned(row[2]), content: row[3], author: row[4],
         source_kind: @interned(row[5]), authority: row[6], created_at: row[7],
         retracted: row[8], version: row[9], parents: row[10], conviction: row[11],
         importance: row[12], intent_id: row[13], task_id: row[14], meta: row[15],
         logged_at: row[16], log_trace: row[17], log_cause: row[18],
         `meta.agent_id`: row[19], `meta.crew_id`: row[20], `meta.session_id`: row[21], id_key: row[22]},
    node += extra/*</shape>*/
RETURN node
