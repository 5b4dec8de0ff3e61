// Create a schedule (memexd/jobs/schedules.py): $schedule its properties.
// @params schedule
CREATE (s:Schedule)
SET s = $schedule
RETURN @schedule(s) AS schedule
