// Schedules due at $now (not paused), with their jobs waiting or running:
// the worker fires each with schedule_fire (memexd/jobs/worker.py).
// @params now limit
MATCH (s:Schedule)
WHERE s.paused = false AND s.next_run_at <= $now
WITH s
LIMIT $limit
OPTIONAL MATCH (j:Job {schedule_id: s.id})
WHERE j.status IN ['QUEUED', 'RUNNING']
WITH s, sum(CASE WHEN j.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued,
  sum(CASE WHEN j.status = 'RUNNING' THEN 1 ELSE 0 END) AS running
RETURN @schedule(s) AS schedule, queued, running
