// trackAccess on a read: one more access for each of the items it returned
// ($ids: unique, sorted), and its time; items gone since are skipped. Not
// an event. Concurrent ones never lose a count: see access_record.
// @params ids now readable
UNWIND $ids AS id
MATCH (n:Item {id: id})
WHERE n.retracted = false AND @readable(n)
SET n.last_accessed_at = $now
SET n.access_count = coalesce(n.access_count, 0) + 1
RETURN count(n) AS tracked
