// FalkorDB's scan page (shapes/scan_from): the items among $limit internal
// node ids from the cursor $after, which the engine seeks directly.
// @params after limit
// @shape node
MATCH (node:Item)
WHERE /*<shape>*/ID(node) >= coalesce($after, 0) AND ID(node) < coalesce($after, 0) + $limit/*</shape>*/
RETURN node
