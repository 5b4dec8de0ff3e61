// Recall's text side: items whose content holds the cue's words (the
// full-text index, stemmed, stop words dropped), live, readable and matching
// the filter, best match first, ties by id. Which items match is the
// caller's choice of form (memexd/recall/words.py): any of $required, or
// every one of them ($every), with $optional words adding to the score
// only. At most $scan matches are read, in the index's order, and grants and
// filter are checked on the $k best of those only (a common word matches
// most items, and the checks cost more than the match); recall asks again
// with larger bounds when they leave too few. The words are letters and
// digits only (memexd/memory/text.py): RediSearch reads '|' as "any of",
// words apart as "all of", and '~' as optional.
// @params required every optional scan k limit readable
CALL db.idx.fulltext.queryNodes('Item',
  CASE WHEN $every THEN reduce(q = '', w IN $required | q + ' ' + w)
  ELSE '(' + reduce(q = head($required), w IN tail($required) | q + '|' + w) + ')' END
  + reduce(q = '', w IN $optional | q + ' ~' + w))
YIELD node, score
WITH node AS n, score
LIMIT $scan
WITH n, score
ORDER BY score DESC
LIMIT $k
// FalkorDB moves a WHERE below an ORDER BY … LIMIT, checking every match
// (55 ms for 90,000 matches): gathering the best into a list keeps it after.
WITH collect({n: n, score: score}) AS best
UNWIND best AS b
WITH b.n AS n, b.score AS score
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n.id AS id, score
ORDER BY score DESC, id ASC
LIMIT $limit
RETURN id, score
