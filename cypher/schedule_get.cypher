// Schedules by id ($ids; all when null) that the caller may see, with their
// jobs waiting or running (the overlap policy weighs them).
// @params ids readable
MATCH (s:Schedule)
WHERE ($ids IS NULL OR s.id IN $ids) AND @job_visible(s)
OPTIONAL MATCH (j:Job {schedule_id: s.id})
WHERE j.status IN ['QUEUED', 'RUNNING']
WITH s, sum(CASE WHEN j.status = 'QUEUED' THEN 1 ELSE 0 END) AS queued,
  sum(CASE WHEN j.status = 'RUNNING' THEN 1 ELSE 0 END) AS running
RETURN @schedule(s) AS schedule, queued, running
ORDER BY s.name, s.id
LIMIT 1000
