// triggerSchedule: queue the schedule's job now ($job, with its event) if
// the schedule still holds the jobs read waiting ($queued) and running
// ($running), and fewer than $max_queued wait. No row back otherwise.
// @params id queued running job events max_queued
MATCH (s:Schedule {id: $id})
OPTIONAL MATCH (j:Job {schedule_id: s.id})
WHERE j.status IN ['QUEUED', 'RUNNING']
WITH s, sum(CASE WHEN j.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued,
  sum(CASE WHEN j.status = 'RUNNING' THEN 1 ELSE 0 END) AS running
WHERE queued = $queued AND running = $running
OPTIONAL MATCH (waiting:Job {status: 'QUEUED'})
WITH s, count(waiting) AS all_queued
WHERE all_queued < $max_queued
SET s.last_job_id = $job.id
CREATE (fired:Job)
SET fired = $job
WITH s
@log_events($events, null, null)
RETURN s.id AS id
