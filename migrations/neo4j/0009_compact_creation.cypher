// An item's memory.created event is stored as the item itself until the item
// changes (docs/events.md, "Storage"): the log reads those events by the
// items' positions (seq), hence the index; an item's history is found by
// its events' subject (log retention, docs/events.md). Items made before this migration
// have their event as a node of its own already: they are marked so
// (logged), and running it again changes nothing.
CREATE INDEX item_seq IF NOT EXISTS FOR (n:Item) ON (n.seq);
CREATE INDEX event_subject IF NOT EXISTS FOR (n:Event) ON (n.subject);
MATCH (n:Item)
WHERE n.logged IS NULL
SET n.logged = true
