// Indexes for the filters agents use most at scale (docs/filters.md,
// "Indexes"): kind and source kind, and the meta segmentation keys, whose
// equality filters compile to these property names (fragments/meta_*_eq).
CREATE INDEX item_kind IF NOT EXISTS FOR (n:Item) ON (n.kind);
CREATE INDEX item_source_kind IF NOT EXISTS FOR (n:Item) ON (n.source_kind);
CREATE INDEX item_meta_agent_id IF NOT EXISTS FOR (n:Item) ON (n.`meta.agent_id`);
CREATE INDEX item_meta_session_id IF NOT EXISTS FOR (n:Item) ON (n.`meta.session_id`);
CREATE INDEX item_meta_crew_id IF NOT EXISTS FOR (n:Item) ON (n.`meta.crew_id`)
