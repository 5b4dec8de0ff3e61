// The order of a scan's page (shapes/scan_match).
// @shape node
MATCH (node:Item)
RETURN /*<shape>*/node.id/*</shape>*/ AS position
