// Drop the full-text index on items' content (MEMEXD_TEXT_SEARCH off).
// @params
DROP INDEX item_content IF EXISTS
