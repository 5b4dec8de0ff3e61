// A running job's end (COMPLETED, FAILED or CANCELLED) with its event, while
// $owner holds it; with $lapsed_before (epoch ms) only if its lease ran out
// before then: how another process marks a job whose process died FAILED.
// @params id owner status result error now lapsed_before events
MATCH (j:Job {id: $id})
WHERE j.status = 'RUNNING' AND j.owner = $owner
  AND ($lapsed_before IS NULL OR j.lease_until < $lapsed_before)
SET j.status = $status, j.finished_at = $now, j.result = coalesce($result, j.result),
    j.error = $error, j.owner = null, j.lease_until = null, j.cancel = null,
    j.progress = CASE WHEN $status = 'COMPLETED' THEN 1.0 ELSE j.progress END
WITH j
@log_events($events, null, null)
RETURN @job(j) AS job
