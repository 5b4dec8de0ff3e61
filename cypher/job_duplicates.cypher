// CONSOLIDATE's reading (memexd/jobs/consolidate.py): in a page of the scan
// (shapes/scan_match), each live, unarchived item under $prefix the caller may
// write that has an older twin (same content_key: the same scope, kind and
// content) gets the oldest such twin as its keeper; `linked` says whether
// the keeper already has a live SUPERSEDES edge to it.
// @params after limit scan_end prefix writable
@scan_match(n)
WITH n
ORDER BY @scan_order(n)
LIMIT $limit
WITH collect(n) AS page
WITH page, @scan_next(page) AS page_next
CALL {
  WITH page
  UNWIND page AS n
  WITH n
  WHERE n.retracted = false AND n.archived IS NULL AND n.content_key IS NOT NULL
    AND n.scope STARTS WITH $prefix AND @writable(n)
  MATCH (k:Item {content_key: n.content_key})
  // the comparison as a value first: in a WHERE, FalkorDB 4.16 serves
  // `k.id < n.id` from the id index and drops the content_key lookup
  WITH n, k, k.retracted = false AND k.archived IS NULL AND k.scope = n.scope
    AND k.kind = n.kind AND @writable(k)
    AND (k.created_at < n.created_at OR (k.created_at = n.created_at AND k.id < n.id)) AS older
  WHERE older
  WITH n, k
  ORDER BY k.created_at, k.id
  // found again by id: FalkorDB does not take a node out of a list into a pattern
  WITH n, collect(k.id)[0] AS keeper_id
  MATCH (keeper:Item {id: keeper_id})
  WHERE @writable(keeper)
  OPTIONAL MATCH (keeper)-[s:SUPERSEDES]->(n)
  WHERE s.retracted = false
  WITH n, keeper, count(s) > 0 AS linked
  RETURN collect({dup: @item(n), keeper: @item(keeper), linked: linked}) AS pairs
}
RETURN page_next AS next, size(page) AS seen, pairs
