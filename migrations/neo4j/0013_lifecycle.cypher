// Items' lifecycle fields as typed properties, always set, for the filters'
// indexes (memexd/memory/lifecycle.py; the values themselves live in meta).
// Items written before take the defaults (an older item's meta holds none);
// running it again changes nothing. The backfill runs in batches until one
// changes nothing (memexd/graph/migrations.py), before the indexes exist,
// which would slow each of its writes.
// No range index serves membership in a list, so tags are checked on the
// candidates of the other conditions.
MATCH (n:Item) WHERE n.lifecycle IS NULL
WITH n LIMIT 50000
SET n.lifecycle = 'PROJECT', n.priority = 'P2', n.tags = []
RETURN count(n) AS changed;
CREATE INDEX item_lifecycle IF NOT EXISTS FOR (n:Item) ON (n.lifecycle);
CREATE INDEX item_priority IF NOT EXISTS FOR (n:Item) ON (n.priority)
