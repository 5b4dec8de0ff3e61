// Whether the full-text index on items' content exists (text search,
// memexd/memory/text.py).
// @params
SHOW FULLTEXT INDEXES YIELD name
WHERE name = 'item_content'
RETURN count(*) AS found
