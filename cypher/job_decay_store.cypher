// DECAY_UPDATE's batch, write side (memexd/jobs/decay.py): store the scores
// cypher/job_decay_scores read, `decay_stored` at `decay_at` (indexed: ranking
// and archival can read a stored score). A derived value, like an embedding:
// no event. An item retracted or moved out of reach since is left alone.
// @params rows now writable
UNWIND $rows AS row
MATCH (n:Item {id: row.id})
WHERE n.retracted = false AND @writable(n)
SET n.decay_stored = row.score, n.decay_at = $now
RETURN count(n) AS stored
