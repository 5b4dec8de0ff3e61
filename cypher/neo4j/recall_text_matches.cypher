// How many items hold $word, up to $cap, and how many of those are live and
// readable by the caller (as cypher/recall_text_matches says).
// @params word cap readable
CALL db.index.fulltext.queryNodes('item_content', $word, {limit: $cap}) YIELD node
WITH node, node.retracted = false AND @readable(node) AS counted
RETURN count(node) AS matches, sum(CASE WHEN counted THEN 1 ELSE 0 END) AS found
