// FalkorDB's job_scan_start: the items, and the highest node id, where the
// scan (falkordb/shapes/scan_from) ends.
// @params
MATCH (n:Item)
WITH count(n) AS items
MATCH (any_node)
RETURN items, max(ID(any_node)) AS scan_end
