// One page of the whole export: intents or tasks (the label slot) the caller
// can read, after the cursor in id order.
// @params after limit readable
MATCH (n:/*<label>*/Intent/*</label>*/)
WHERE n.id > $after AND @readable(n)
WITH n
ORDER BY n.id
LIMIT $limit
RETURN @plan(n) AS record
