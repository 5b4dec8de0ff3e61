// Items whose content holds every one of $words (the engine's full-text
// index, with its stemming: "cats" finds "cat"), filtered and limited, best
// match first, ties by id. $words are letters and digits only
// (memexd/memory/text.py); RediSearch reads words apart as "all of these".
// @params words limit include_retracted readable
CALL db.idx.fulltext.queryNodes('Item', reduce(q = '', w IN $words | q + ' ' + w))
YIELD node, score
WITH node AS n, score
WHERE ($include_retracted OR n.retracted = false) AND @readable(n)
  AND /*<filter>*/true/*</filter>*/
WITH n, score
ORDER BY score DESC, n.id ASC
LIMIT $limit
RETURN @item(n) AS item
