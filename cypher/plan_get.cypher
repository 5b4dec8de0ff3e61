// Intents or tasks (the label slot) by id that the caller may read (any order).
// @params ids readable
UNWIND $ids AS id
MATCH (n:/*<label>*/Intent/*</label>*/ {id: id})
WHERE @readable(n)
RETURN @plan(n) AS record
