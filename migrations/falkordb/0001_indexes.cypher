// Lookup indexes. FalkorDB's range indexes serve equality, ranges and sorting.
CREATE INDEX FOR (n:Item) ON (n.id);
CREATE INDEX FOR (n:Item) ON (n.scope);
CREATE INDEX FOR (n:Item) ON (n.created_at);
CREATE INDEX FOR (n:Item) ON (n.authority);
CREATE INDEX FOR (n:Item) ON (n.conviction);
CREATE INDEX FOR (n:Item) ON (n.importance);
CREATE INDEX FOR (n:Item) ON (n.author);
CREATE INDEX FOR (n:Placeholder) ON (n.id);
CREATE INDEX FOR (n:EdgeKey) ON (n.edge_id);
CREATE INDEX FOR (n:Event) ON (n.id);
CREATE INDEX FOR (n:Event) ON (n.seq);
CREATE INDEX FOR (n:Intent) ON (n.id);
CREATE INDEX FOR (n:Task) ON (n.id);
CREATE INDEX FOR (n:Counter) ON (n.name)
