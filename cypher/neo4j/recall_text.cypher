// Recall's text side: items whose content holds the cue's words (the
// full-text index item_content, English analyzer), live, readable and
// matching the filter, best match first, ties by id; the form and the bounds
// as cypher/recall_text says (Lucene keeps the $scan best, not the first).
// The words are lower-case letters and digits only (memexd/memory/text.py):
// '+' marks what must match, Lucene's OR (upper case, so no word is one)
// joins, and a bare word adds to the score only.
// @params required every optional scan k limit readable
CALL db.index.fulltext.queryNodes('item_content',
  CASE WHEN $every THEN reduce(q = '', w IN $required | q + ' +' + w)
  ELSE '+(' + reduce(q = head($required), w IN tail($required) | q + ' OR ' + w) + ')' END
  + reduce(q = '', w IN $optional | q + ' ' + w), {limit: $scan})
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
