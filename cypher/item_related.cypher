// Live items joined to one item by active edges in a direction (the slot).
// @params id
MATCH (x:Item {id: $id})/*<pattern>*/-[r]-/*</pattern>*/(y:Item)
WHERE r.edge_id IS NOT NULL AND r.retracted = false AND r.active
  AND y.retracted = false
WITH DISTINCT y
ORDER BY y.id
RETURN @item(y) AS item
