// Recall's candidates as items, with what sinks them: the readable live
// items superseding each (active SUPERSEDES edges) and contradicting it
// (active CONTRADICTS edges, either way). OPTIONAL MATCH with the
// conditions in the collected CASE, as fragments/score_marks explains. And
// each one's decay score at $now with $half_life (shapes/decay_score).
// @params ids now half_life readable
MATCH (n:Item)
WHERE n.id IN $ids AND n.retracted = false AND @readable(n)
OPTIONAL MATCH (n)<-[s:SUPERSEDES]-(w:Item)
WITH n, collect(CASE WHEN s.active = true AND s.retracted = false
  AND w.retracted = false AND @readable(w) THEN w.id END) AS superseded_by
OPTIONAL MATCH (n)-[r:CONTRADICTS]-(m:Item)
WITH n, superseded_by, collect(CASE WHEN r.active = true AND r.retracted = false
  AND m.retracted = false AND @readable(m) THEN m.id END) AS contradicted_by
WITH n, superseded_by, contradicted_by, @decay_score(n, $now, $half_life) AS decay
RETURN @item(n) AS item, superseded_by, contradicted_by, decay
