// Items whose content holds every one of the words in $terms (the full-text
// index item_content), filtered and limited, best match first, ties by id.
// $terms is the Lucene query memexd built from the caller's words
// (memexd/memory/text.py).
// @params terms limit include_retracted readable
CALL db.index.fulltext.queryNodes('item_content', $terms) YIELD node, score
WITH node AS n, score
WHERE ($include_retracted OR n.retracted = false) AND @readable(n)
  AND /*<filter>*/true/*</filter>*/
WITH n, score
ORDER BY score DESC, n.id ASC
LIMIT $limit
RETURN @item(n) AS item
