// Recall's text side: items whose content holds any of $words (the
// full-text index item_content, English analyzer), live, readable and
// matching the filter, best match first, ties by id (grants and filter
// checked on the $k best matches, as cypher/recall_text says). $words are lower-case
// letters and digits only (memexd/memory/text.py): joined by Lucene's OR.
// @params words k limit readable
CALL db.index.fulltext.queryNodes('item_content',
  reduce(q = head($words), w IN tail($words) | q + ' OR ' + w))
YIELD node, score
WITH node AS n, score
ORDER BY score DESC
LIMIT $k
WITH n, score
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $limit
RETURN id, score
