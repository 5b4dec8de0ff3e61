// Write a bulk transform (applyMany, bulkAdjustScores, decayImportance) or
// an undo (undoTrace) in one statement, if nothing changed since it was
// read: every updated and every retracted item still live at the version
// read, the live edges touching the retracted items exactly $edge_ids
// (sorted), every edge of $unlinked ({edge_id, version}: edges retracted
// alone, an undo's) live at its version, and each retracted item with
// `children` set (an undo's) still the live parent of exactly that many items
// (all retracted with it: a child another command made since stops the
// write). Updated items take their new properties; retracted items and those
// edges become tombstones, as in item_retract; the events are logged in the
// batch's order. $undo: the record of an undo (an Undo node), or null. An
// update may move the item's scope (its root follows) and, with `reembed`,
// change its content (it waits for its vector).
// ok = false: the state moved on (or an item is no longer the caller's to
// write); the caller reads again.
// Each updated item's memory.created event becomes a node first (u.created,
// @log_creation); each retracted item keeps its memory.retracted event
// (d.event_id at d.at, @log_retracted); the other events ($events) are nodes
// at their places among the $count (@log_lock, @log_placed).
// @params updates doomed edge_ids unlinked undo events count marks writable
@log_lock()
CALL {
  UNWIND $updates AS u
  MATCH (n:Item {id: u.id})
  WHERE n.retracted = false AND n.version = u.version AND @writable(n)
  RETURN collect({node: n, props: u.props, removed: u.removed, created: u.created,
                  reembed: u.reembed}) AS changed
}
CALL {
  UNWIND $doomed AS d
  MATCH (n:Item {id: d.id})
  WHERE n.retracted = false AND n.version = d.version AND @writable(n)
  // counted only for an undo (the bulk transforms set no `children`)
  WITH d, n, CASE WHEN d.children IS NULL THEN null
    ELSE size([(n)<-[:PARENT]-(kid:Item) WHERE kid.retracted = false | kid]) END AS kids
  WHERE d.children IS NULL OR kids = d.children
  RETURN collect({node: n, event_id: d.event_id, at: d.at}) AS gone
}
CALL {
  WITH gone
  UNWIND gone AS g
  WITH g.node AS x
  OPTIONAL MATCH (x)-[r]-(:Item)
  WHERE r.edge_id IS NOT NULL AND r.retracted = false
  WITH DISTINCT r
  // in order, to compare with $edge_ids (sorted by the caller) in one pass
  ORDER BY r.edge_id
  RETURN collect(r) AS edges, collect(r.edge_id) AS edge_ids
}
CALL {
  UNWIND $unlinked AS u
  MATCH (k:EdgeKey {edge_id: u.edge_id})
  WITH u, k.from_id AS from_id, k.to_id AS to_id
  MATCH (a:Item {id: from_id})-[r]->(b:Item {id: to_id})
  WHERE r.edge_id = u.edge_id AND r.retracted = false AND r.version = u.version
    AND @writable(a) AND @writable(b)
  RETURN collect(r) AS cut
}
WITH log_seq, log_base, changed, gone, edges, cut,
     size(changed) = size($updates) AND size(gone) = size($doomed)
       AND edge_ids = $edge_ids AND size(cut) = size($unlinked) AS ok
CALL {
  WITH changed, ok
  UNWIND CASE WHEN ok THEN changed ELSE [] END AS c
  WITH c.node AS n, c.props AS props, c.removed AS removed, c.created AS created,
       c.reembed AS reembed
  FOREACH (gone IN removed | SET n += gone)
  SET n += props, n.version = n.version + 1
  FOREACH (_ IN CASE WHEN props.scope IS NULL THEN [] ELSE [1] END |
    SET n.scope_root = @scope_root(props.scope))
  FOREACH (_ IN CASE WHEN reembed = true THEN [1] ELSE [] END | SET n:Unembedded)
  @log_creation(n, created)
  RETURN count(*) AS updated
}
CALL {
  WITH gone, ok, log_base
  UNWIND CASE WHEN ok THEN gone ELSE [] END AS g
  WITH g.node AS n, g.event_id AS event_id, g.at AS at, log_base
  @log_retracted(n, event_id, at, $marks)
  RETURN count(*) AS retracted
}
FOREACH (r IN CASE WHEN ok THEN edges + cut ELSE [] END |
  SET r.retracted = true, r.version = r.version + 1)
FOREACH (record IN CASE WHEN ok AND $undo IS NOT NULL THEN [$undo] ELSE [] END |
  CREATE (undone:Undo)
  SET undone = record)
@log_placed(ok, $events, $count)
RETURN ok
