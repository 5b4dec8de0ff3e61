// Set a session's working-memory capacity in a scope (SPEC §11, seed 001):
// how many live SESSION items of that session and scope stay unarchived.
// A null capacity removes the setting. Configuration, not memory: no event
// (the archivals it causes are events). Returns the setting, or no row
// when the scope is not writable.
// @params scope session_id capacity writable
WITH $scope AS scope
WHERE @writable_scope(scope)
MERGE (w:WorkingMemory {scope: $scope, session_id: $session_id})
SET w.capacity = $capacity
WITH w, w.capacity AS capacity
FOREACH (_ IN CASE WHEN capacity IS NULL THEN [1] ELSE [] END | DELETE w)
RETURN capacity
