// Items written before recall wait for their embedding: the Unembedded
// label the write paths now set (memexd/recall/embedding.py picks them up).
// Running it again changes nothing for items embedded since.
MATCH (n:Item) WHERE n.embedded_with IS NULL
SET n:Unembedded
