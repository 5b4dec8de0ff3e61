// The working-memory capacities set for (scope, session) pairs ($pairs:
// {scope, session}), with how many live, unarchived SESSION items each
// holds now that the caller may write (a write brings items only to
// scopes it may write; the count is what it plans with).
// @params sessions pairs writable
MATCH (w:WorkingMemory)
WHERE w.session_id IN $sessions
  AND any(p IN $pairs WHERE p.scope = w.scope AND p.session = w.session_id)
OPTIONAL MATCH (n:Item)
WHERE n.`meta.session_id` = w.session_id AND n.scope = w.scope AND n.lifecycle = 'SESSION'
  AND n.retracted = false AND n.archived IS NULL AND @writable(n)
RETURN w.scope AS scope, w.session_id AS session_id, w.capacity AS capacity,
       count(n) AS held
