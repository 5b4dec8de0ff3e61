// A sample of the collection recall's BM25 ranks among: the content of up
// to $size live items the caller can read that match the filter, in the
// engine's order, for the items' average length and the frequencies of
// common words (memexd/recall/words.py).
// @params size readable
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n
LIMIT $size
RETURN n.content AS content
