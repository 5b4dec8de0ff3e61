// The steps a walk may take from the given items: [from, to] id pairs to
// live readable items along the walk's relationship (the same slots as
// traverse.cypher). A deep attempt (traverse_deep.cypher) finds items and
// their depths; this names the links between them.
// (The WITH keeps FalkorDB from planning a scan of every item for y.)
// @params ids readable
UNWIND $ids AS id
MATCH (x:Item {id: id})
WHERE x.retracted = false AND @readable(x)
WITH x
MATCH (x)/*<pattern>*/-[r:PARENT]->/*</pattern>*/(y:Item)
WHERE y.retracted = false AND @readable(y) AND /*<rel>*/true/*</rel>*/
RETURN x.id AS from, collect(y.id) AS to
