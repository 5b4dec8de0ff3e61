// Pause or resume a schedule at the version read: $paused, and the next
// run ($next_run_at; null while paused). No row back: it changed meanwhile.
// @params id version paused next_run_at
MATCH (s:Schedule {id: $id})
WHERE s.version = $version
SET s.paused = $paused, s.next_run_at = $next_run_at, s.version = $version + 1
RETURN @schedule(s) AS schedule
