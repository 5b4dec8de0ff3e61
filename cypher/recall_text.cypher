// Recall's text side: items whose content holds any of $words (the
// full-text index, stemmed, stop words dropped), live, readable and matching
// the filter, best match first, ties by id. $words are letters and digits
// only (memexd/memory/text.py); RediSearch reads '|' as "any of these".
// @params words limit readable
CALL db.idx.fulltext.queryNodes('Item', reduce(q = head($words), w IN tail($words) | q + '|' + w))
YIELD node, score
WITH node AS n, score
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $limit
RETURN id, score
