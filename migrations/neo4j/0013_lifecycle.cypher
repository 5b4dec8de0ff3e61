// Items' lifecycle fields as typed properties, always set, for the filters'
// indexes (memexd/memory/lifecycle.py; the values themselves live in meta).
// Items written before take the defaults (an older item's meta holds none);
// running it again changes nothing. No range index serves membership in a
// list, so tags are checked on the candidates of the other conditions.
CREATE INDEX item_lifecycle IF NOT EXISTS FOR (n:Item) ON (n.lifecycle);
CREATE INDEX item_priority IF NOT EXISTS FOR (n:Item) ON (n.priority);
MATCH (n:Item) WHERE n.lifecycle IS NULL
SET n.lifecycle = 'PROJECT', n.priority = 'P2', n.tags = []
