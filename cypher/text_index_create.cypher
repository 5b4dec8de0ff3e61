// Create the full-text index on items' content (MEMEXD_TEXT_SEARCH on).
// @params
CALL db.idx.fulltext.createNodeIndex('Item', 'content')
