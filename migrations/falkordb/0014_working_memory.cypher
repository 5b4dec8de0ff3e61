// Working-memory capacities (memexd/memory/working.py) are found by session
// on every write that brings SESSION items.
CREATE INDEX FOR (w:WorkingMemory) ON (w.session_id)
