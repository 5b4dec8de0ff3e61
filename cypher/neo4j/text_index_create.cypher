// Create the full-text index on items' content (MEMEXD_TEXT_SEARCH on).
// Lucene's English analyzer stems words ("cats" finds "cat") and drops
// stop words, as FalkorDB's index does.
// @params
CREATE FULLTEXT INDEX item_content IF NOT EXISTS FOR (n:Item) ON EACH [n.content]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
