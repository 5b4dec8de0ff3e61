// Store content keys ($rows: [id, version, key]) on items that have none,
// at the version read (an item changed since got its key from that write).
// Derived data, as an embedding is: no event.
// @params rows writable
UNWIND $rows AS row
MATCH (n:Item {id: row[0]})
WHERE n.version = row[1] AND n.content_key IS NULL AND @writable(n)
SET n.content_key = row[2]
RETURN count(n) AS keyed
