// recordAccess: one more access for each live item the caller may read
// ($ids: unique, sorted), and its time; all or none (no row back when an id
// is missing, retracted or unreadable). Not an event: access is a read.
// Writes run one at a time on both engines (Neo4j: neo4j/write_lock), so
// concurrent increments never lose one.
// @params ids now readable
UNWIND $ids AS id
OPTIONAL MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n)
WITH collect(n) AS found
WHERE size(found) = size($ids)
UNWIND found AS n
SET n.last_accessed_at = $now
SET n.access_count = coalesce(n.access_count, 0) + 1
RETURN @item(n) AS item
