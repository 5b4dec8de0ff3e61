// A maintenance job's scan over every item, a page a batch
// (memexd/jobs/scan.py), in three parts: scan_match (the MATCH of the
// page's items from the cursor $after; the first cursor is job_scan_start's
// `start`), scan_order (their order; the statement takes $limit) and
// scan_next (the next page's cursor from the page's list; null: done).
// Here the cursor is an item id and Neo4j serves the order from the id
// index. FalkorDB has its own (falkordb/shapes/): ordering by id would sort
// every item after the cursor for each page (0.24 s a page at 200,000 items,
// measured), so it seeks a range of internal node ids instead.
// @params after
// @shape node
/*<shape>*/MATCH (node:Item)
WHERE node.id > $after/*</shape>*/
RETURN node
