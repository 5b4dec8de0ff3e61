// Working-memory capacities (memexd/memory/working.py) are found by session
// on every write that brings SESSION items.
CREATE INDEX working_memory_session IF NOT EXISTS FOR (w:WorkingMemory) ON (w.session_id)
