// Queue a job (memexd/jobs/queue.py): create its Job node ($job: its
// properties, status QUEUED) with its job.queued event, unless
// $max_queued jobs already wait (no row back: the queue is full).
// @params job events max_queued
OPTIONAL MATCH (waiting:Job {status: 'QUEUED'})
WITH count(waiting) AS queued
WHERE queued < $max_queued
CREATE (j:Job)
SET j = $job
WITH j
@log_events($events, null, null)
RETURN j.id AS id
