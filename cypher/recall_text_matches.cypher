// How many items hold $word, counted up to $cap only (the index yields
// matches one by one, so a common word costs $cap rows, not all of them),
// and how many of those are live and readable by the caller: recall leaves
// words matching more than $cap - 1 items out of what must match, and words
// matching nothing the caller can read out of the query
// (memexd/recall/words.py). One word a query: FalkorDB does not start a LIMIT
// inside CALL {} afresh for each outer row. The check is a projected value
// because FalkorDB would move a WHERE below the LIMIT, reading every match.
// @params word cap readable
CALL db.idx.fulltext.queryNodes('Item', $word) YIELD node
WITH node
LIMIT $cap
WITH node, node.retracted = false AND @readable(node) AS counted
RETURN count(node) AS matches, sum(CASE WHEN counted THEN 1 ELSE 0 END) AS found
