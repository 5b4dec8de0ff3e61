// Top-k in the index (docs/neo4j.md, "Top-k filters"): a sorted top-k asks
// first for a band at the top of the sort key (memexd/memory/indexed.py). On
// Neo4j one index answers one predicate, so a band of a big group (a
// tenant's 10,000 items at 1M, a crew's 5,000) read every item of the group
// to keep the band's few: 20-53 ms at 1M. An index on the group's key and
// the sort key hands over the band only: 1-2 ms. The groups that grow big
// are a tenant (scope root), an agent and a crew; the keys every score sort
// and recency bands on. FalkorDB needs none of these: its one index per
// label answers both predicates at once.
CREATE INDEX item_root_created IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.created_at);
CREATE INDEX item_root_authority IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.authority);
CREATE INDEX item_root_conviction IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.conviction);
CREATE INDEX item_root_importance IF NOT EXISTS FOR (n:Item) ON (n.scope_root, n.importance);
CREATE INDEX item_agent_created IF NOT EXISTS FOR (n:Item) ON (n.`meta.agent_id`, n.created_at);
CREATE INDEX item_agent_authority IF NOT EXISTS FOR (n:Item) ON (n.`meta.agent_id`, n.authority);
CREATE INDEX item_agent_conviction IF NOT EXISTS FOR (n:Item) ON (n.`meta.agent_id`, n.conviction);
CREATE INDEX item_agent_importance IF NOT EXISTS FOR (n:Item) ON (n.`meta.agent_id`, n.importance);
CREATE INDEX item_crew_created IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.created_at);
CREATE INDEX item_crew_authority IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.authority);
CREATE INDEX item_crew_conviction IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.conviction);
CREATE INDEX item_crew_importance IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`, n.importance)
