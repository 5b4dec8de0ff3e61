// FalkorDB's scan page (shapes/scan_from): the items among $limit internal
// node ids from the cursor $after, which the engine seeks directly (with
// the bounds plain parameters: an expression around one, coalesce() say,
// turns the seek into a scan of every item, measured).
// @params after limit
// @shape node
MATCH (node:Item)
WHERE /*<shape>*/ID(node) >= $after AND ID(node) < $after + $limit/*</shape>*/
RETURN node
