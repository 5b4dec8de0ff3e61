// Indexes for the filters agents use most at scale (docs/filters.md,
// "Indexes"): kind and source kind, and the meta segmentation keys, whose
// equality filters compile to these property names (fragments/meta_*_eq).
CREATE INDEX FOR (n:Item) ON (n.kind);
CREATE INDEX FOR (n:Item) ON (n.source_kind);
CREATE INDEX FOR (n:Item) ON (n.`meta.agent_id`);
CREATE INDEX FOR (n:Item) ON (n.`meta.session_id`);
CREATE INDEX FOR (n:Item) ON (n.`meta.crew_id`)
