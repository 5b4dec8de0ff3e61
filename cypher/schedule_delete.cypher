// Delete a schedule (its jobs keep their schedule id, as history).
// @params id
MATCH (s:Schedule {id: $id})
DELETE s
RETURN count(*) AS deleted
