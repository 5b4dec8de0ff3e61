// A schedule's tick, once however many processes try: only the one that
// finds it still at the version read, with the jobs it read waiting
// ($queued) and running ($running), moves it to its next run ($next_run_at)
// and, when $job is given (its overlap policy lets it run) and fewer than
// $max_queued jobs wait, queues that job with its event. No row back: another
// process fired it, or it changed.
// @params id version queued running next_run_at job events max_queued
MATCH (s:Schedule {id: $id})
WHERE s.version = $version AND s.paused = false
OPTIONAL MATCH (j:Job {schedule_id: s.id})
WHERE j.status IN ['QUEUED', 'RUNNING']
WITH s, sum(CASE WHEN j.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued,
  sum(CASE WHEN j.status = 'RUNNING' THEN 1 ELSE 0 END) AS running
WHERE queued = $queued AND running = $running
OPTIONAL MATCH (waiting:Job {status: 'QUEUED'})
WITH s, $job IS NOT NULL AND count(waiting) < $max_queued AS firing
SET s.next_run_at = $next_run_at, s.version = $version + 1,
    s.last_job_id = CASE WHEN firing THEN $job.id ELSE s.last_job_id END
FOREACH (_ IN CASE WHEN firing THEN [1] ELSE [] END |
  CREATE (fired:Job)
  SET fired = $job)
WITH s, firing
@log_events(CASE WHEN firing THEN $events ELSE [] END, null, null)
RETURN firing
