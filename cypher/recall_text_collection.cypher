// The collection recall's BM25 ranks among (memexd/recall/words.py): how
// many live items the caller can read match the filter (counted up to
// $cap: past that, the rarity of a word hardly changes).
// @params cap readable
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n
LIMIT $cap
RETURN count(n) AS items
