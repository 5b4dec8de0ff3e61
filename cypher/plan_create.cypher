// Create an intent or a task (the label slot; properties checked and
// complete) with its created event, if the id is free and the caller may
// write the scope. No row back: the id is taken (the unique constraint
// settles a race).
// @params id props events writable
OPTIONAL MATCH (dup:/*<label>*/Intent/*</label>*/ {id: $id})
WITH dup
WHERE dup IS NULL AND @writable($props)
CREATE (n:/*<label>*/Intent/*</label>*/)
SET n = $props
WITH n
@log_events($events, n.scope, [n.scope])
RETURN n.id AS id
