// FalkorDB's job_scan_start: the items, the highest node id, where the scan
// (falkordb/shapes/scan_match) ends, and the first cursor, node id 0.
// @params
MATCH (n:Item)
WITH count(n) AS items
MATCH (any_node)
RETURN items, max(ID(any_node)) AS scan_end, 0 AS start
