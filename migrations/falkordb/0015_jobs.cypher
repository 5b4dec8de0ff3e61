// Maintenance jobs (memexd/jobs/): jobs by id and status, schedules by id,
// archives and their chunks by id; items by content key (CONSOLIDATE finds twins by it) and by
// stored decay score (DECAY_UPDATE). Items written before content keys
// existed get theirs from the first CONSOLIDATE run (no backfill here: at a
// million items it would hold the start past the engine's query timeout).
CREATE INDEX FOR (j:Job) ON (j.id);
CREATE INDEX FOR (j:Job) ON (j.status);
CREATE INDEX FOR (j:Job) ON (j.schedule_id);
CREATE INDEX FOR (s:Schedule) ON (s.id);
CREATE INDEX FOR (a:MemoryArchive) ON (a.id);
CREATE INDEX FOR (c:MemoryArchiveChunk) ON (c.archive_id);
CREATE INDEX FOR (n:Item) ON (n.content_key);
CREATE INDEX FOR (n:Item) ON (n.decay_stored)
