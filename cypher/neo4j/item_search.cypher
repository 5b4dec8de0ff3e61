// Items whose content holds every one of $words (the full-text index
// item_content), filtered and limited, best match first, ties by id. $words
// are lower-case letters and digits only (memexd/memory/text.py): joined by
// Lucene's AND (its operators are upper case, so no word is one).
// @params words limit include_retracted readable
CALL db.index.fulltext.queryNodes('item_content',
  reduce(q = head($words), w IN tail($words) | q + ' AND ' + w))
YIELD node, score
WITH node AS n, score
WHERE ($include_retracted OR n.retracted = false) AND @readable(n)
  AND /*<filter>*/true/*</filter>*/
WITH n, score
ORDER BY score DESC, n.id ASC
LIMIT $limit
RETURN @item(n) AS item
