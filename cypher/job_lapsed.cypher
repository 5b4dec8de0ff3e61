// Running jobs whose lease ran out before $now: their process died (or
// lost the engine for longer than the lease). memexd/jobs/worker.py marks
// each FAILED with job_finish.
// @params now limit
MATCH (j:Job {status: 'RUNNING'})
WHERE j.lease_until < $now
RETURN @job(j) AS job, j.owner AS owner
LIMIT $limit
