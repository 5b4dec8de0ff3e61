// The candidates of itemsByBudget and smartRetrieve, best first (ties by id),
// one page after the cursor ($after_score, $after_id: the last row of the
// previous page, exact). With $cap, only candidates whose cost floor
// (fragments/score_cost_*; UNIT: 1) fits it, or whose cost is not a number. Each row
// carries the item (what packing needs, and the answer: no second read) and
// its exact score. With a contradiction policy, the marks slot takes
// fragments/score_marks (who supersedes it, its contradictions; readable
// items only); else none.
// @params readable wa wc wi now rate interval after_score after_id cap cost_key limit
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n, /*<score>*/n.authority/*</score>*/ AS score
WHERE ($after_score IS NULL OR score < $after_score
       OR (score = $after_score AND n.id > $after_id))
  AND ($cap IS NULL OR NOT coalesce(/*<cost>*/1/*</cost>*/ > $cap, false))
WITH n, score
ORDER BY score DESC, n.id ASC
LIMIT $limit
/*<marks>*/WITH n, score, [] AS superseded_by, [] AS contradicts/*</marks>*/
RETURN @item(n) AS item, @exact(score) AS exact,
  superseded_by, contradicts
