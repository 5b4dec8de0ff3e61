// Drop the full-text index on items' content (MEMEXD_TEXT_SEARCH off: its
// memory comes back). Item's range indexes stay.
// @params
CALL db.idx.fulltext.drop('Item')
