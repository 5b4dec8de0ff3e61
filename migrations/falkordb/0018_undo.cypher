// Undo by trace (memexd/history/undo.py): what a trace did, found by index
// (its event nodes, the items that keep its memory.created or
// memory.retracted), and the record of each undo, by the trace it undid.
CREATE INDEX FOR (n:Event) ON (n.trace_id);
CREATE INDEX FOR (n:Item) ON (n.log_trace);
CREATE INDEX FOR (n:Item) ON (n.retracted_trace);
CREATE INDEX FOR (u:Undo) ON (u.trace)
