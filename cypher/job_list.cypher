// The jobs the caller may see, newest first, by status and type when given.
// @params status type limit readable
MATCH (j:Job)
WHERE ($status IS NULL OR j.status = $status) AND ($type IS NULL OR j.type = $type)
  AND @job_visible(j)
WITH j
ORDER BY j.created_at DESC, j.id DESC
LIMIT $limit
RETURN @job(j) AS job
