// Create the full-text index on items' content (MEMEXD_TEXT_SEARCH on).
// @params
CREATE FULLTEXT INDEX item_content IF NOT EXISTS FOR (n:Item) ON EACH [n.content]
