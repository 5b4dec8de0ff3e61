// Items by id, in no particular order; retracted ones only when asked.
// @params ids include_retracted readable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE ($include_retracted OR n.retracted = false) AND @readable(n)
RETURN @item(n) AS item
