// What is left of a retrieval's candidates after the cursor ($after_score,
// $after_id), in one aggregation: how many, how many might still fit $cap
// (cost floor at most $cap, or a cost that is not a number), and the best
// score of each (author, source kind) group, best first, at most $groups of
// them: a bound on the scores diversity penalties leave the unseen candidates.
// @params readable wa wc wi now rate interval after_score after_id cap cost_key groups
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n, /*<score>*/n.authority/*</score>*/ AS score
WHERE score < $after_score OR (score = $after_score AND n.id > $after_id)
WITH n.author AS author, n.source_kind AS source_kind, max(score) AS score,
  sum(CASE WHEN NOT coalesce(/*<cost>*/1/*</cost>*/ > $cap, false) THEN 1 ELSE 0 END) AS fitting,
  count(n) AS total
ORDER BY score DESC, author, source_kind
WITH collect([author, source_kind, @exact(score)]) AS groups,
  sum(fitting) AS fitting, sum(total) AS total
RETURN groups[0..$groups] AS groups, fitting, total
