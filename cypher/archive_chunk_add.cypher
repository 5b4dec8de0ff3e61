// One chunk of an archive being made (memexd/jobs/archives.py): its
// gzip-compressed bytes (base64) at position $ord. The MemoryArchive node
// that owns them is made last (archive_create): chunks of a run that
// failed own nothing and are deleted with archive_orphans_drop.
// @params archive_id ord data
CREATE (c:MemoryArchiveChunk {archive_id: $archive_id, ord: $ord, data: $data})
RETURN c.ord AS ord
