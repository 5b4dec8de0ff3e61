// Items' lifecycle fields as typed properties, always set, for the filters'
// indexes (memexd/memory/lifecycle.py; the values themselves live in meta).
// Items written before take the defaults (an older item's meta holds none);
// running it again changes nothing. FalkorDB's index serves `'t' IN n.tags`.
CREATE INDEX FOR (n:Item) ON (n.lifecycle);
CREATE INDEX FOR (n:Item) ON (n.priority);
CREATE INDEX FOR (n:Item) ON (n.tags);
MATCH (n:Item) WHERE n.lifecycle IS NULL
SET n.lifecycle = 'PROJECT', n.priority = 'P2', n.tags = []
