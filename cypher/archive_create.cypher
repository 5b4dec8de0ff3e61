// An archive, once all its chunks are stored ($archive: its properties).
// @params archive
CREATE (a:MemoryArchive)
SET a = $archive
RETURN a.id AS id
