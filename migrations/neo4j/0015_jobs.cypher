// Maintenance jobs (memexd/jobs/): jobs by id and status, schedules by id,
// archives and their chunks by id; items by content key (CONSOLIDATE finds twins by it) and by
// stored decay score (DECAY_UPDATE). Items written before content keys
// existed get theirs from the first CONSOLIDATE run (no backfill here: at a
// million items it would hold the start past the engine's query timeout).
CREATE CONSTRAINT job_id IF NOT EXISTS FOR (j:Job) REQUIRE j.id IS UNIQUE;
CREATE INDEX job_status IF NOT EXISTS FOR (j:Job) ON (j.status);
CREATE INDEX job_schedule IF NOT EXISTS FOR (j:Job) ON (j.schedule_id);
CREATE CONSTRAINT schedule_id IF NOT EXISTS FOR (s:Schedule) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT archive_id IF NOT EXISTS FOR (a:MemoryArchive) REQUIRE a.id IS UNIQUE;
CREATE INDEX archive_chunk IF NOT EXISTS FOR (c:MemoryArchiveChunk) ON (c.archive_id);
CREATE INDEX item_content_key IF NOT EXISTS FOR (n:Item) ON (n.content_key);
CREATE INDEX item_decay_stored IF NOT EXISTS FOR (n:Item) ON (n.decay_stored)
