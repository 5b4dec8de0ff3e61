// Top-k in the index (docs/neo4j.md, "Top-k filters"): a sorted top-k asks
// first for a band at the top of the sort key (memexd/memory/indexed.py). On
// Neo4j one index answers one predicate, so a band of a big group (a
// tenant's 10,000 items at 1M, a crew's 5,000) read every item of the group
// to keep the band's few: 20-53 ms at 1M. An index on the group's key and
// the sort key hands over the band only: 1-3 ms. The groups that grow big
// are a tenant (scope root) and a crew, with the keys every score sort and
// recency bands on; an agent's items are few enough to sort (500 at 1M,
// its top-10 by importance in 5 ms), and each index costs 30-60 bytes an
// item of store and page cache (bench/neo4j_indexes.py). FalkorDB needs
// none of these: its one index per label answers both predicates at once.
CREATE INDEX item_root_created IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.created_at);
CREATE INDEX item_root_authority IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.authority);
CREATE INDEX item_root_conviction IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.conviction);
CREATE INDEX item_root_importance IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.importance);
CREATE INDEX item_crew_created IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.created_at);
CREATE INDEX item_crew_authority IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.authority);
CREATE INDEX item_crew_conviction IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.conviction);
CREATE INDEX item_crew_importance IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.importance)
