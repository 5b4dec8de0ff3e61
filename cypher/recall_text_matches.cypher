// The items holding $word (the full-text index, stemmed, stop words
// dropped): how many the index yields, counted up to $cap only (it yields
// matches one by one, so a common word costs $cap rows, not all of them),
// and the ids of those that are live, readable by the caller and match the
// filter. A word with fewer than $cap matches is rare: its ids are every
// readable match, which recall scores by BM25 and counts as the word's
// document frequency (memexd/recall/words.py). One word a query: FalkorDB
// does not start a LIMIT inside CALL {} afresh for each outer row. The check
// is a projected value because FalkorDB would move a WHERE below the LIMIT,
// reading every match.
// @params word cap readable
CALL db.idx.fulltext.queryNodes('Item', $word) YIELD node
WITH node AS n
LIMIT $cap
WITH n, n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/) AS counted
RETURN count(n) AS matches, collect(CASE WHEN counted THEN n.id END) AS ids
