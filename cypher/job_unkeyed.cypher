// CONSOLIDATE's first pass (memexd/jobs/consolidate.py): in a page of the
// scan (shapes/scan_match), the live items under $prefix the caller may
// write that have no content key yet (written before keys existed), with
// what their key is made of.
// @params after limit scan_end prefix writable
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
  WITH n, n.content_key IS NULL AND n.retracted = false AND n.scope STARTS WITH $prefix
    AND @writable(n) AS waiting
  WHERE waiting
  RETURN collect([n.id, n.version, n.scope, n.kind, n.content]) AS unkeyed
}
RETURN page_next AS next, size(page) AS seen, unkeyed
