// A running job's progress after a batch, and its lease renewed, while
// $owner still holds it. No row back: the lease lapsed and another process
// marked it FAILED (the runner stops). `cancel`: cancelJob asked it to stop.
// @params id owner progress result lease_until
MATCH (j:Job {id: $id})
WHERE j.status = 'RUNNING' AND j.owner = $owner
SET j.progress = coalesce($progress, j.progress), j.result = coalesce($result, j.result),
    j.lease_until = $lease_until
RETURN coalesce(j.cancel, false) AS cancel
