// The oldest queued jobs (memexd/jobs/worker.py claims one with job_claim).
// @params limit
MATCH (j:Job {status: 'QUEUED'})
WITH j
ORDER BY j.created_at, j.id
LIMIT $limit
RETURN @job(j) AS job
