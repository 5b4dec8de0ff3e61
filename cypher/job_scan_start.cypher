// Where a maintenance job's scan stands when it begins: how many items it
// will pass (its progress is pages over this) and, on FalkorDB, the highest
// node id (falkordb/job_scan_start; null here: a scan ends on a short page),
// and the first cursor (`start`: before every id).
// The count is taken alone first: beside it a constant would be a grouping
// key, and an empty graph would give no row at all.
// @params
MATCH (n:Item)
WITH count(n) AS items
RETURN items, null AS scan_end, '' AS start
