// An archive's chunks in order (ARCHIVE_RESTORE), from position $from, at
// most $limit.
// @params archive_id from limit
MATCH (c:MemoryArchiveChunk {archive_id: $archive_id})
WHERE c.ord >= $from
RETURN c.ord AS ord, c.data AS data
ORDER BY c.ord
LIMIT $limit
