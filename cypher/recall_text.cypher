// Recall's text side: items whose content holds any of $words (the
// full-text index, stemmed, stop words dropped), live, readable and matching
// the filter, best match first, ties by id. Grants and filter are checked
// on the $k best matches only (a common word matches most items, and the
// checks cost more than the match); recall asks again without the cap when
// they leave too few. $words are letters and digits
// only (memexd/memory/text.py); RediSearch reads '|' as "any of these".
// @params words k limit readable
CALL db.idx.fulltext.queryNodes('Item', reduce(q = head($words), w IN tail($words) | q + '|' + w))
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
