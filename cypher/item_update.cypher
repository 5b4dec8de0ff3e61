// Apply an already-merged update if the item is still at the version it was
// read at (optimistic concurrency), optionally re-linking its parents, and
// append the memory.updated event. No row back means: gone, or changed since.
// @params id version props relink links events writable
MATCH (n:Item {id: $id})
WHERE n.retracted = false AND n.version = $version AND @writable(n) AND @writable($props)
SET n += $props, n.version = $version + 1
WITH n
CALL {
  WITH n
  WITH n WHERE $relink
  OPTIONAL MATCH (n)-[r:PARENT|AWAITS]->(target)
  DELETE r
  WITH DISTINCT target
  WHERE target:Placeholder AND NOT (target)<-[:AWAITS]-()
  DELETE target
  RETURN count(*) AS unlinked
}
CALL {
  WITH n
  UNWIND $links AS link
  OPTIONAL MATCH (p:Item {id: link.parent})
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
    CREATE (n)-[:PARENT {ord: link.ord}]->(p))
  FOREACH (_ IN CASE WHEN p IS NULL THEN [1] ELSE [] END |
    MERGE (w:Placeholder {id: link.parent})
    CREATE (n)-[:AWAITS {ord: link.ord}]->(w))
  RETURN count(*) AS linked
}
@log_events($events, n.scope, null)
RETURN n.id AS id
