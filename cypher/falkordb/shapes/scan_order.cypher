// The order of FalkorDB's scan page (falkordb/shapes/scan_match).
// @shape node
MATCH (node:Item)
RETURN /*<shape>*/ID(node)/*</shape>*/ AS position
