// How many items the caller may write still wait for a content key.
// @params writable
MATCH (n:Unkeyed)
WHERE @writable(n)
RETURN count(n) AS waiting
