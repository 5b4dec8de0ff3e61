// The items in a session's working memory in a scope, as the next write
// there would evict them: live, unarchived SESSION items of that session,
// lowest decay score first, ties by id, with their versions.
// @params scope session_id now half_life limit writable
MATCH (n:Item)
WHERE n.`meta.session_id` = $session_id AND n.scope = $scope AND n.lifecycle = 'SESSION'
  AND n.retracted = false AND n.archived IS NULL AND @writable(n)
WITH n, @decay_score(n, $now, $half_life) AS score
ORDER BY score, n.id
LIMIT $limit
RETURN @item(n) AS item
