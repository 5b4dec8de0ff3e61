// Store content keys ($rows: [id, version, key]) on items waiting for one.
// An item changed since the read got its key from that write, which is kept.
// Derived data, as an embedding is: no event.
// @params rows writable
UNWIND $rows AS row
MATCH (n:Unkeyed {id: row[0]})
WHERE @writable(n)
SET n.content_key = coalesce(CASE WHEN n.version = row[1] THEN row[2] END, n.content_key)
REMOVE n:Unkeyed
RETURN count(n) AS keyed
