// Put a page of items embedded by another model (or by none; a caller's own
// vector stays: embedding_own) back on the
// waiting list, in id order after $after (memexd embed --all): resumable.
// @params after limit model
MATCH (n:Item)
WHERE n.id > $after AND n.retracted = false
WITH n
ORDER BY n.id
LIMIT $limit
FOREACH (_ IN CASE WHEN NOT coalesce(n.embedded_with, '') IN [$model, 'caller'] THEN [1] ELSE [] END |
  SET n:Unembedded)
RETURN max(n.id) AS last, count(n) AS seen
