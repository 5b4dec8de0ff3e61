// Delete the chunks of an archive that was never finished ($archive_id).
// @params archive_id
MATCH (c:MemoryArchiveChunk {archive_id: $archive_id})
DELETE c
RETURN count(*) AS dropped
