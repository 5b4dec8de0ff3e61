// The content of recall's text candidates, for BM25 (memexd/recall/bm25.py):
// the live items among $ids the caller can read.
// @params ids readable
MATCH (n:Item)
WHERE n.id IN $ids AND n.retracted = false AND @readable(n)
RETURN n.id AS id, n.content AS content
