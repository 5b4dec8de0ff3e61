// CLEANUP's reading (memexd/jobs/cleanup.py): in a page of the scan
// (shapes/scan_match), the items to purge: archived or retracted, created
// before $cutoff, decay score at $now under $threshold, not tagged pinned,
// under $prefix, writable by the caller.
// @params after limit scan_end prefix cutoff threshold now half_life writable
@scan_match(n)
WITH n
ORDER BY @scan_order(n)
LIMIT $limit
WITH collect(n) AS page
WITH page, @scan_next(page) AS page_next
CALL {
  WITH page
  UNWIND page AS n
  // as a value first (FalkorDB drops some predicates in a WHERE: job_duplicates)
  WITH n, (n.archived = true OR n.retracted = true) AND n.created_at < $cutoff
    AND NOT 'pinned' IN coalesce(n.tags, []) AND n.scope STARTS WITH $prefix
    AND @writable(n) AS purgeable
  WHERE purgeable
  WITH n
  WHERE @decay_score(n, $now, $half_life) < $threshold
  RETURN collect(@item(n)) AS doomed
}
RETURN page_next AS next, size(page) AS seen, doomed
