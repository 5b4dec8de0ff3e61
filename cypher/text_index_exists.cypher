// Whether the full-text index on items' content exists (text search,
// memexd/memory/text.py). FalkorDB lists it among the Item label's indexes.
// @params
CALL db.indexes() YIELD label, types
WITH label, types
WHERE label = 'Item' AND 'FULLTEXT' IN coalesce(types.content, [])
RETURN count(*) AS found
