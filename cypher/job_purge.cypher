// CLEANUP's batch (memexd/jobs/cleanup.py): purge items for good, all or
// nothing at the versions read ($rows: {id, version}; still archived or
// retracted, not pinned). With each item go its typed edges and their
// EdgeKeys, its memory.* events (their payloads hold its content) and every
// link; children that named it as a parent wait for it again (AWAITS a
// Placeholder, as for a parent never created: an archive restored later
// links them back). The log keeps one content-free memory.purged event per
// item ($events). No row back: an item changed since the read.
// @params rows events writable
UNWIND $rows AS row
OPTIONAL MATCH (n:Item {id: row.id})
WHERE n.version = row.version AND (n.archived = true OR n.retracted = true)
  AND NOT 'pinned' IN coalesce(n.tags, []) AND @writable(n)
WITH count(n) AS found
WHERE found = size($rows)
UNWIND $rows AS row
MATCH (n:Item {id: row.id})
WHERE @writable(n)
CALL {
  WITH n
  MATCH (n)-[r]-()
  WHERE r.edge_id IS NOT NULL
  MATCH (k:EdgeKey {edge_id: r.edge_id})
  DELETE k
  RETURN count(k) AS keys
}
CALL {
  WITH n
  MATCH (h:Event {subject: n.id})
  WHERE h.namespace = 'memory' AND h.type STARTS WITH 'memory.'
  DELETE h
  RETURN count(h) AS history
}
CALL {
  WITH n
  MATCH (c:Item)-[p:PARENT]->(n)
  WHERE c.id <> n.id
  MERGE (w:Placeholder {id: n.id})
  CREATE (c)-[:AWAITS {ord: p.ord}]->(w)
  RETURN count(c) AS waiting
}
DETACH DELETE n
WITH count(*) AS purged
@log_events($events, null, null)
RETURN purged
