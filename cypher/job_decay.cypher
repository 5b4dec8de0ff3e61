// DECAY_UPDATE's batch (memexd/jobs/decay.py): a page of the scan (shapes/scan_match)
// whose live items under $prefix the caller may write get their decay score
// at $now (shapes/decay_score) stored, `decay_stored`, with `decay_at`
// (indexed: ranking and archival can read a stored score). A derived value,
// like an embedding: no event. $dry: count only, write nothing.
// @params after limit scan_end prefix now half_life dry writable
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
FOREACH (_ IN CASE WHEN mine AND NOT $dry THEN [1] ELSE [] END |
  SET n.decay_stored = score, n.decay_at = $now)
RETURN page_next AS next, count(n) AS seen, sum(CASE WHEN mine THEN 1 ELSE 0 END) AS matched,
  sum(CASE WHEN score < 0.1 THEN 1 ELSE 0 END) AS below_archive,
  sum(CASE WHEN score < 0.2 THEN 1 ELSE 0 END) AS below_cleanup
