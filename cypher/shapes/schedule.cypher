// A Schedule node as memexd/jobs/schedules.py reads it (schedule_from_row).
// @shape node
MATCH (node:Schedule)
RETURN /*<shape>*/node {.id, .name, .cron, .time_zone, .job, .overlap, .paused, .next_run_at,
  .last_job_id, .created_at, .version, .reach, .read_grants, .write_grants,
  .caller}/*</shape>*/ AS schedule
