// FalkorDB's scan page (shapes/scan_match): the items among $limit internal
// node ids from the cursor $after, which the engine seeks directly. Both
// bounds must be plain values for the seek to use them: with an expression
// (`$after + $limit`, `coalesce($after, 0)`) it scans every node past the
// cursor, each page (0.24 s a page at a million items, measured), so the
// upper bound is computed first.
// @params after limit
// @shape node
/*<shape>*/WITH $after + $limit AS scan_upto
MATCH (node:Item)
WHERE ID(node) >= $after AND ID(node) < scan_upto/*</shape>*/
RETURN node
