// Items written before content keys existed (migration 0015 labels them
// Unkeyed) that the caller may write: CONSOLIDATE keys them first
// (job_keys_set) to find their twins.
// @params limit writable
MATCH (n:Unkeyed)
WHERE @writable(n)
RETURN n.id AS id, n.version AS version, n.scope AS scope, n.kind AS kind,
  n.content AS content
LIMIT $limit
