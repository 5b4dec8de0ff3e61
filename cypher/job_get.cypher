// Jobs by id that the caller may see (@job_visible).
// @params ids readable
UNWIND $ids AS id
MATCH (j:Job {id: id})
WHERE @job_visible(j)
RETURN @job(j) AS job
