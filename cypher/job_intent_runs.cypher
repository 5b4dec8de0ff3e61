// PATTERNS_EXTRACT's reading (memexd/jobs/patterns.py): a page of the
// intents under $prefix the caller may read, in id order after $after,
// each with its readable tasks' actions and statuses in creation order.
// (Intents are far fewer than items: the id order is served by the index on
// Neo4j and sorted on FalkorDB, the page's cost growing with the intents.)
// @params after limit prefix readable
MATCH (i:Intent)
WHERE i.id > $after AND i.scope STARTS WITH $prefix AND @readable(i)
WITH i
ORDER BY i.id
LIMIT $limit
OPTIONAL MATCH (t:Task)-[:FOR_INTENT]->(i)
WHERE @readable(t)
WITH i, t
ORDER BY i.id, t.id
RETURN i.id AS id, i.scope AS scope, collect(t.action) AS actions,
  collect(t.status) AS statuses
