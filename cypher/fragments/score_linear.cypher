// Score with linear decay: the weighted sum (score_plain) times
// max(0, 1 - rate·age), age in intervals at $now; items from the future do not decay.
// @params wa wc wi now rate interval
MATCH (n:Item)
RETURN /*<value>*/($wa * n.authority + $wc * coalesce(n.conviction, 0.0)
  + $wi * coalesce(n.importance, 0.0))
  * CASE WHEN n.created_at >= $now THEN 1.0
    WHEN 1.0 - $rate * (toFloat($now - n.created_at) / $interval) < 0.0 THEN 0.0
    ELSE 1.0 - $rate * (toFloat($now - n.created_at) / $interval) END/*</value>*/ AS score
