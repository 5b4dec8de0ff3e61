// Apply an intent's or a task's (the label slot) new state, an update or a
// lifecycle move, if it is still at the version it was read at and the caller
// may write it, with its event. No row back: changed since (read again) or
// not writable.
// @params id version props events writable
MATCH (n:/*<label>*/Intent/*</label>*/ {id: $id})
WHERE n.version = $version AND @writable(n) AND @writable($props)
SET n += $props, n.version = $version + 1
WITH n
@log_events($events, n.scope, [n.scope])
RETURN n.id AS id
