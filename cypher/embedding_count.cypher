// How many live items the caller can read wait for an embedding, and how
// many have one.
// @params readable
OPTIONAL MATCH (w:Unembedded) WHERE w.retracted = false AND @readable(w)
WITH count(w) AS waiting
OPTIONAL MATCH (n:Item) WHERE n.retracted = false AND n.embedded_with IS NOT NULL AND @readable(n)
RETURN waiting, count(n) AS embedded
