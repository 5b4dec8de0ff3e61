// DECAY_UPDATE's batch, read side (memexd/jobs/decay.py): a page of the scan
// (shapes/scan_match); its live items under $prefix the caller may write are
// scored at $now (shapes/decay_score), and those whose stored score is missing
// or at least $tolerance away are returned to be stored (cypher/job_decay_store).
// Reading apart from writing keeps the write, which holds the graph's write
// lock, to id seeks and SETs: readers wait for it, not for the scoring.
// @params after limit scan_end prefix now half_life tolerance writable
@scan_match(n)
WITH n
ORDER BY @scan_order(n)
LIMIT $limit
WITH collect(n) AS page
WITH page, @scan_next(page) AS page_next
UNWIND CASE WHEN size(page) = 0 THEN [null] ELSE page END AS n
WITH page_next, n, n IS NOT NULL AND n.retracted = false AND n.scope STARTS WITH $prefix
  AND @writable(n) AS mine
WITH page_next, n, mine, CASE WHEN mine THEN @decay_score(n, $now, $half_life) END AS score
WITH page_next, n, mine, score,
  mine AND (n.decay_stored IS NULL OR abs(n.decay_stored - score) >= $tolerance) AS moved
RETURN page_next AS next, count(n) AS seen, sum(CASE WHEN mine THEN 1 ELSE 0 END) AS matched,
  sum(CASE WHEN score < 0.1 THEN 1 ELSE 0 END) AS below_archive,
  sum(CASE WHEN score < 0.2 THEN 1 ELSE 0 END) AS below_cleanup,
  collect(CASE WHEN moved THEN {id: n.id, score: score} END) AS moved
