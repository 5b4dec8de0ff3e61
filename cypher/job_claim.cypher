// Claim a queued job for one process ($owner) with a lease until
// $lease_until, logging its job.started event. Writes run one at a time on
// both engines (memexd/graph/neo4j.py), so of several processes claiming the
// same job one finds it QUEUED and the others get no row.
// @params id owner now lease_until events
MATCH (j:Job {id: $id})
WHERE j.status = 'QUEUED'
SET j.status = 'RUNNING', j.owner = $owner, j.started_at = $now,
    j.lease_until = $lease_until, j.progress = 0.0
WITH j
@log_events($events, null, null)
RETURN @job(j) AS job
