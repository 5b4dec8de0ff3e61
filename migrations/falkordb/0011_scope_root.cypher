// Every item keeps its scope's root (the first segment, before the first
// '/'), indexed, so a tenant's prefix filter is one index value rather than
// the union of every scope under it (docs/filters.md, "Indexes"). Items
// written before take theirs here, as cypher/shapes/scope_root.cypher
// computes it; running it again changes nothing.
CREATE INDEX FOR (n:Item) ON (n.scope_root);
MATCH (n:Item) WHERE n.scope_root IS NULL
SET n.scope_root = intern(split(n.scope, '/')[0])
