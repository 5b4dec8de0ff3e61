// Whether any live item the caller may write has no content key yet (items
// written before keys existed): CONSOLIDATE's first pass runs only then.
// @params writable
MATCH (n:Item)
WHERE n.content_key IS NULL AND n.retracted = false AND @writable(n)
RETURN n.id AS id
LIMIT 1
