// The items holding $word, as cypher/recall_text_matches says: up to $cap
// of them (Lucene yields its best first), and the ids of the live, readable
// ones matching the filter.
// @params word cap readable
CALL db.index.fulltext.queryNodes('item_content', $word, {limit: $cap}) YIELD node
WITH node AS n
WITH n, n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/) AS counted
RETURN count(n) AS matches, collect(CASE WHEN counted THEN n.id END) AS ids
