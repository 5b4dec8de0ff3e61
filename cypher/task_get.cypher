// Tasks by id that the caller may read (any order).
// @params ids readable
UNWIND $ids AS id
MATCH (n:Task {id: id})
WHERE @readable(n)
RETURN properties(n) AS record
