// scoredItems: the caller's live items matching the filter, scored in the
// database (the score slot: fragments/score_plain,
// score_exponential, score_linear or score_step), at least $min_score, best
// first with ties by id, paged. Pre- and post-filter are per-item predicates,
// so they arrive AND-ed in the filter slot; the exact slot carries the score
// to the service without rounding (shapes/exact).
// @params readable wa wc wi now rate interval min_score offset limit
MATCH (n:Item)
WHERE n.retracted = false AND @readable(n) AND (/*<filter>*/true/*</filter>*/)
WITH n, /*<score>*/n.authority/*</score>*/ AS score
WHERE $min_score IS NULL OR score >= $min_score
WITH n, score
ORDER BY score DESC, n.id ASC
SKIP $offset
LIMIT $limit
RETURN @item(n) AS item, @exact(score) AS exact
