// Archive or unarchive items at the versions read ($rows: [id, version]),
// all or none (no row back when one changed, was retracted, or already is
// as asked), with their events, in one statement. Archived items keep
// everything; reads leave them out (fragments/not_archived). $archive:
// true archives, false unarchives.
// @params rows archive now events writable
UNWIND $rows AS row
OPTIONAL MATCH (n:Item {id: row[0]})
WHERE n.version = row[1] AND n.retracted = false AND (n.archived IS NULL) = $archive
  AND @writable(n)
WITH collect(n) AS found
WHERE size(found) = size($rows)
UNWIND found AS n
SET n.archived = CASE WHEN $archive THEN true END,
    n.archived_at = CASE WHEN $archive THEN $now END
WITH count(n) AS changed
@log_events($events, null, null)
RETURN changed
