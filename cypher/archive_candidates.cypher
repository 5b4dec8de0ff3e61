// archiveByDecay's reading: live items the caller may write that match the
// filter (archived ones are left out by it), with their decay score at $now
// and $half_life (shapes/decay_score), lowest first, ties by id. $kind picks
// which: 'archive' (below $threshold, not PROJECT: to archive), 'skip'
// (below it but PROJECT: protected) or 'retain' (at or above it).
// @params kind threshold now half_life limit writable
MATCH (n:Item)
WHERE n.retracted = false AND /*<filter>*/true/*</filter>*/ AND @writable(n)
WITH n, @decay_score(n, $now, $half_life) AS score
WHERE CASE $kind
  WHEN 'archive' THEN score < $threshold AND n.lifecycle <> 'PROJECT'
  WHEN 'skip' THEN score < $threshold AND n.lifecycle = 'PROJECT'
  ELSE score >= $threshold END
WITH n, score
ORDER BY score, n.id
LIMIT $limit
RETURN @item(n) AS item
