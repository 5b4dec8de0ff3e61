// CONSOLIDATE's batch (memexd/jobs/consolidate.py), all or nothing at the
// versions read: each duplicate ($pairs[i]: {dup, version, keeper, at}) is
// archived and gets a SUPERSEDES edge from its keeper ($edges[i]: props and
// EdgeKey; null when the keeper has one already), with the events
// ($events: pair i's from index `at`, the edge.created event first). No row
// back when a duplicate changed, was retracted or archived, or its keeper
// went, since the read (the job reads the page again).
// @params pairs edges events now writable
UNWIND $pairs AS p
OPTIONAL MATCH (d:Item {id: p.dup})
WHERE d.version = p.version AND d.retracted = false AND d.archived IS NULL AND @writable(d)
OPTIONAL MATCH (k:Item {id: p.keeper})
WHERE k.retracted = false AND k.archived IS NULL AND @writable(k)
WITH count(d) AS dups, count(k) AS keepers
WHERE dups = size($pairs) AND keepers = size($pairs)
@log_reserve(size($events))
UNWIND range(0, size($events) - 1) AS i
CREATE (log_e:Event)
SET log_e = $events[i], log_e.seq = log_base + i + 1
WITH log_base, count(log_e) AS logged
UNWIND range(0, size($pairs) - 1) AS i
WITH log_base, $pairs[i] AS p, $edges[i] AS e
MATCH (d:Item {id: p.dup})
WHERE @writable(d)
MATCH (k:Item {id: p.keeper})
WHERE @writable(k)
SET d.archived = true, d.archived_at = $now
FOREACH (_ IN CASE WHEN e IS NULL THEN [] ELSE [1] END |
  CREATE (k)-[r:SUPERSEDES]->(d)
  SET r = e.props, r.seq = log_base + p.at + 1
  CREATE (edge_key:EdgeKey)
  SET edge_key = e.key)
RETURN count(d) AS archived
