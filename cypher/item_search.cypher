// Items whose content holds every one of the words in $terms (the engine's
// full-text index, with its stemming: "cats" finds "cat"), filtered and
// limited, best match first, ties by id. $terms is the query text memexd
// built from the caller's words (memexd/memory/text.py): nothing of the
// caller's reaches the index's query syntax unescaped.
// @params terms limit include_retracted readable
CALL db.idx.fulltext.queryNodes('Item', $terms) YIELD node, score
WITH node AS n, score
WHERE ($include_retracted OR n.retracted = false) AND @readable(n)
  AND /*<filter>*/true/*</filter>*/
WITH n, score
ORDER BY score DESC, n.id ASC
LIMIT $limit
RETURN @item(n) AS item
