// Write a bulk transform (applyMany, bulkAdjustScores, decayImportance) in
// one statement, if nothing changed since it was read: every updated and
// every retracted item still live at the version read, and the live edges
// touching the retracted items exactly $edge_ids. Updated items take their
// new properties; retracted items and those edges become tombstones, as in
// item_retract; the events are appended in the batch's order.
// ok = false: the state moved on (or an item is no longer the caller's to
// write); the caller reads again.
// Each updated item's memory.created event becomes a node first (u.created,
// @log_creation).
// @params updates doomed edge_ids events writable
CALL {
  UNWIND $updates AS u
  MATCH (n:Item {id: u.id})
  WHERE n.retracted = false AND n.version = u.version AND @writable(n)
  RETURN collect({node: n, props: u.props, removed: u.removed, created: u.created}) AS changed
}
CALL {
  UNWIND $doomed AS d
  MATCH (n:Item {id: d.id})
  WHERE n.retracted = false AND n.version = d.version AND @writable(n)
  RETURN collect(n) AS gone
}
CALL {
  WITH gone
  UNWIND gone AS x
  OPTIONAL MATCH (x)-[r]-(:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  RETURN collect(DISTINCT r) AS edges
}
WITH changed, gone, edges,
     size(changed) = size($updates) AND size(gone) = size($doomed)
       AND size(edges) = size($edge_ids) AND all(r IN edges WHERE r.edge_id IN $edge_ids) AS ok
CALL {
  WITH changed, ok
  UNWIND CASE WHEN ok THEN changed ELSE [] END AS c
  WITH c.node AS n, c.props AS props, c.removed AS removed, c.created AS created
  FOREACH (gone IN removed | SET n += gone)
  SET n += props, n.version = n.version + 1
  @log_creation(n, created)
  RETURN count(*) AS updated
}
FOREACH (n IN CASE WHEN ok THEN gone ELSE [] END |
  SET n.retracted = true, n.version = n.version + 1)
FOREACH (r IN CASE WHEN ok THEN edges ELSE [] END |
  SET r.retracted = true, r.version = r.version + 1)
WITH ok, CASE WHEN ok THEN $events ELSE [] END AS events
@log_events(events, null, null)
RETURN ok
