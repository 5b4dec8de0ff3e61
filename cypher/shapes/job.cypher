// A Job node as memexd/jobs/model.py reads it (job_from_row).
// @shape node
MATCH (node:Job)
RETURN /*<shape>*/node {.id, .type, .status, .scope_prefix, .params, .dry_run, .author,
  .created_at, .started_at, .finished_at, .progress, .result, .error, .schedule_id,
  .reach, .read_grants, .write_grants, .caller, .cancel, .owner}/*</shape>*/ AS job
