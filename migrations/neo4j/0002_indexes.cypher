// Lookup indexes for filters and sorting.
CREATE INDEX item_scope IF NOT EXISTS FOR (n:Item) ON (n.scope);
CREATE INDEX item_created_at IF NOT EXISTS FOR (n:Item) ON (n.created_at);
CREATE INDEX item_authority IF NOT EXISTS FOR (n:Item) ON (n.authority);
CREATE INDEX item_conviction IF NOT EXISTS FOR (n:Item) ON (n.conviction);
CREATE INDEX item_importance IF NOT EXISTS FOR (n:Item) ON (n.importance);
CREATE INDEX item_author IF NOT EXISTS FOR (n:Item) ON (n.author);
CREATE INDEX event_seq IF NOT EXISTS FOR (n:Event) ON (n.seq)
