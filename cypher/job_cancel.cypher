// cancelJob at the status read ($status): a QUEUED job is CANCELLED now,
// with its event; a RUNNING one is asked to stop (its runner ends it
// CANCELLED after the batch under way). No row back: the status changed.
// @params id status now events
MATCH (j:Job {id: $id})
WHERE j.status = $status
SET j.status = CASE WHEN $status = 'QUEUED' THEN 'CANCELLED' ELSE j.status END,
    j.finished_at = CASE WHEN $status = 'QUEUED' THEN $now ELSE j.finished_at END,
    j.cancel = CASE WHEN $status = 'RUNNING' THEN true ELSE j.cancel END
WITH j
@log_events($events, null, null)
RETURN @job(j) AS job
