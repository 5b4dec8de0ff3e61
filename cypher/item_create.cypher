// Create a batch of items in one atomic statement: re-check that no id is
// taken, create the nodes, link parents that exist (PARENT) and wait for the
// ones that do not (AWAITS a Placeholder), resolve placeholders earlier items
// left for these ids, and append one memory.created event per item.
// Returns no row when an id is already taken.
// @params ids rows links events writable
OPTIONAL MATCH (dup:Item) WHERE dup.id IN $ids
WITH count(dup) AS dups
WHERE dups = 0 AND all(row IN $rows WHERE @writable(row))
UNWIND $rows AS row
CREATE (n:Item)
SET n = row
WITH count(n) AS created
WHERE created = size($rows)
CALL {
  WITH created
  UNWIND $links AS link
  MATCH (c:Item {id: link.child})
  OPTIONAL MATCH (p:Item {id: link.parent})
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
    CREATE (c)-[:PARENT {ord: link.ord}]->(p))
  FOREACH (_ IN CASE WHEN p IS NULL THEN [1] ELSE [] END |
    MERGE (w:Placeholder {id: link.parent})
    CREATE (c)-[:AWAITS {ord: link.ord}]->(w))
  RETURN count(*) AS linked
}
CALL {
  WITH created
  UNWIND $ids AS id
  MATCH (w:Placeholder {id: id})<-[a:AWAITS]-(c:Item)
  MATCH (n:Item {id: id})
  CREATE (c)-[:PARENT {ord: a.ord}]->(n)
  DELETE a
  WITH DISTINCT w
  DELETE w
  RETURN count(*) AS resolved
}
@log_events($events, null, null)
RETURN created
