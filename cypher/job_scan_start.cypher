// Where a maintenance job's scan stands when it begins: how many items it
// will pass (its progress is pages over this) and, on FalkorDB, the highest
// node id (falkordb/job_scan_start; null here: a scan ends on a short page).
// @params
MATCH (n:Item)
RETURN count(n) AS items, null AS scan_end
