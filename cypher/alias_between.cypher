// The ALIAS edges joining two items, each way, not retracted: unmarkAlias
// reads them, then retracts them at these versions (cypher/alias_unmark).
// @params a b readable
MATCH (f:Item {id: $a})-[r:ALIAS]->(t:Item {id: $b})
WHERE r.retracted = false AND @readable(f) AND @readable(t)
RETURN @edge(r, f, t) AS edge
UNION ALL
MATCH (f:Item {id: $b})-[r:ALIAS]->(t:Item {id: $a})
WHERE r.retracted = false AND @readable(f) AND @readable(t)
RETURN @edge(r, f, t) AS edge
