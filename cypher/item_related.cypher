// Live items joined to one item by active edges in a direction (the slot).
// @params id readable
MATCH (x:Item {id: $id})/*<pattern>*/-[r]-/*</pattern>*/(y:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND r.active
  AND y.retracted = false AND @readable(x) AND @readable(y)
WITH DISTINCT y
ORDER BY y.id
RETURN @item(y) AS item
