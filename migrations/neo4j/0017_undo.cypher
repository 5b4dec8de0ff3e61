// Undo by trace (memexd/history/undo.py): what a trace did, found by index
// (its event nodes, the items that keep its memory.created or
// memory.retracted), and the record of each undo, by the trace it undid.
CREATE INDEX event_trace IF NOT EXISTS FOR (n:Event) ON (n.trace_id);
CREATE INDEX item_log_trace IF NOT EXISTS FOR (n:Item) ON (n.log_trace);
CREATE INDEX item_retracted_trace IF NOT EXISTS FOR (n:Item) ON (n.retracted_trace);
CREATE INDEX undo_trace IF NOT EXISTS FOR (u:Undo) ON (u.trace)
