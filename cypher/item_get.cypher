// Items by id, in no particular order, each once; retracted ones only when asked.
// One index scan over the list: cheaper than a row per id from UNWIND.
// @params ids include_retracted readable
MATCH (n:Item)
WHERE n.id IN $ids AND ($include_retracted OR n.retracted = false) AND @readable(n)
RETURN @item(n) AS item
