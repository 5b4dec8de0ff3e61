// How many live items wait for an embedding, and how many have one.
// @params
OPTIONAL MATCH (w:Unembedded) WHERE w.retracted = false
WITH count(w) AS waiting
OPTIONAL MATCH (n:Item) WHERE n.embedded_with IS NOT NULL
RETURN waiting, count(n) AS embedded
