// ARCHIVE_CREATE's reading (memexd/jobs/archives.py): in a page of the scan
// (shapes/scan_match), the live items (archived ones too) under $prefix the
// caller may read, created in [$from, $to).
// @params after limit scan_end prefix from to readable
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
  WITH n, n.retracted = false AND n.scope STARTS WITH $prefix AND n.created_at >= $from
    AND n.created_at < $to AND @readable(n) AS kept
  WHERE kept
  RETURN collect(@item(n)) AS items
}
RETURN page_next AS next, size(page) AS seen, items
