// Each item's record just before a position (memexd/history/undo.py): the
// payload of its last memory.created or memory.updated event node logged
// before $subjects[i].seq (an item changed since it was created keeps its
// memory.created as a node), and whether the caller may read it (seen: all
// its scopes).
// @params subjects readable
UNWIND $subjects AS subject
WITH subject.id AS id, subject.seq AS seq
OPTIONAL MATCH (e:Event {subject: id})
WHERE e.seq < seq AND e.type IN ['memory.created', 'memory.updated']
WITH id, max(e.seq) AS top
OPTIONAL MATCH (p:Event {subject: id})
WHERE p.seq = top
RETURN id, p.payload AS payload, @readable_event(p) AS seen
