// Items as they were at an instant (memexd/history/asof.py): for each id, the
// node (whole while it is as created, which it then records; else only the
// statistics it keeps), the times of the events it keeps (its memory.created
// while it is as created, its memory.retracted), and, among its memory.*
// event nodes logged at or before $at, the last one and the last that
// archived or unarchived it, found in one pass over its events (a second
// look-up per event costs four times as much at a thousand ids). Python
// decides what the item was then. Under today's grants on the scope it had
// then (`seen`): the node's, while it is as created, else that of its last
// event (an event's scope is its item's after the change). The `filter`
// slot takes conditions on the scope alone (memory.filters.scope_part).
// @params ids at readable
UNWIND $ids AS id
OPTIONAL MATCH (n:Item {id: id})
OPTIONAL MATCH (e:Event {subject: id})
WITH id, n, collect(e) AS es
WITH id, n,
  reduce(top = null, x IN es | CASE WHEN x.namespace = 'memory' AND x.ts <= $at
    AND (top IS NULL OR x.seq > top.seq) THEN x ELSE top END) AS last,
  reduce(top = null, x IN es | CASE WHEN x.type IN ['memory.archived', 'memory.unarchived']
    AND x.ts <= $at AND (top IS NULL OR x.seq > top.seq) THEN x ELSE top END) AS shelf
WITH id, n, last, shelf,
  CASE WHEN n.logged = true THEN @readable_scope(last.scope) ELSE @readable(n) END AS seen,
  CASE WHEN n.logged = true THEN last.scope ELSE n.scope END AS then_scope
// the filter's conditions on the scope, over the scope the item had then:
// items it rules out come back as nothing (no record to read)
WITH id, n AS node, last, shelf, seen, then_scope,
  {scope: then_scope, scope_root: CASE WHEN then_scope IS NULL THEN null
    ELSE @scope_root(then_scope) END} AS n
WHERE then_scope IS NULL OR (/*<filter>*/true/*</filter>*/)
RETURN id,
  CASE WHEN node IS NULL THEN null
    WHEN node.logged = true THEN node {.seq, .access_count, .last_accessed_at}
    ELSE @item(node) END AS item,
  seen, node.logged AS logged, coalesce(node.logged_at, node.created_at) AS created_ts,
  node.retracted_at AS retracted_at, last.type AS last_type, last.payload AS last_payload,
  shelf.type AS shelf
