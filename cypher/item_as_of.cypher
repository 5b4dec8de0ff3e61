// Items as they were at an instant (memexd/memory/asof.py): for each id, the
// node as it is now, the times of the events it keeps (its memory.created
// while it is as created, its memory.retracted), and, among its memory.*
// event nodes logged at or before $at, the last one and the last that
// archived or unarchived it. Python decides what the item was then. Under
// today's grants on the scope it had then (`seen`): the node's, while it is
// as created, else that of its last event (an event's scope is its item's
// after the change).
// @params ids at readable
UNWIND $ids AS id
OPTIONAL MATCH (n:Item {id: id})
OPTIONAL MATCH (e:Event {subject: id})
WHERE e.namespace = 'memory' AND e.ts <= $at
WITH id, n, max(e.seq) AS top,
  max(CASE WHEN e.type IN ['memory.archived', 'memory.unarchived'] THEN e.seq END) AS moved
OPTIONAL MATCH (last:Event {subject: id})
WHERE last.seq = top
OPTIONAL MATCH (shelf:Event {subject: id})
WHERE shelf.seq = moved
RETURN id, CASE WHEN n IS NULL THEN null ELSE @item(n) END AS item,
  CASE WHEN n.logged = true THEN @readable_scope(last.scope) ELSE @readable(n) END AS seen,
  n.logged AS logged, coalesce(n.logged_at, n.created_at) AS created_ts,
  n.retracted_at AS retracted_at,
  CASE WHEN last IS NULL THEN null ELSE @event(last) END AS last, shelf.type AS shelf
