// Clauses for the candidate stream of a smart retrieval with a contradiction
// policy (the marks slot of retrieval_stream): for each candidate row n,
// the readable live items superseding it (active SUPERSEDES edges) and its
// active CONTRADICTS edges with readable live items, either way, as
// [edge id, the other item, the edge's log position]. OPTIONAL MATCH, not
// pattern comprehensions: FalkorDB 4.16 answers [] for a second
// comprehension reusing a variable name, and every grant names read_prefix.
// The conditions sit in the collected CASE: as the OPTIONAL MATCH's WHERE,
// the grant costs FalkorDB twice as much per row.
// @params readable
MATCH (n:Item)
WITH n, 0.0 AS score
/*<clauses>*/OPTIONAL MATCH (n)<-[s:SUPERSEDES]-(w:Item)
WITH n, score, collect(CASE WHEN s.active = true AND s.retracted = false
  AND w.retracted = false AND @readable(w) THEN w.id END) AS superseded_by
OPTIONAL MATCH (n)-[r:CONTRADICTS]-(m:Item)
WITH n, score, superseded_by, collect(CASE WHEN r.active = true AND r.retracted = false
  AND m.retracted = false AND @readable(m) THEN [r.edge_id, m.id, r.seq] END) AS contradicts
ORDER BY score DESC, n.id ASC/*</clauses>*/
RETURN n.id AS id, superseded_by, contradicts
