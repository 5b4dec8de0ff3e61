// Score with step decay: the weighted sum (score_plain) times
// (1 - rate)^floor(age), age in intervals at $now; items from the future do not decay.
// @params wa wc wi now rate interval
MATCH (n:Item)
RETURN /*<value>*/($wa * n.authority + $wc * coalesce(n.conviction, 0.0)
  + $wi * coalesce(n.importance, 0.0))
  * CASE WHEN n.created_at >= $now THEN 1.0
    ELSE (1.0 - $rate) ^ floor(toFloat($now - n.created_at) / $interval) END/*</value>*/ AS score
