// Score value: MemEX's weighted sum of the trust scores (a missing conviction
// or importance counts 0) times the decay multiplier of the item's age at
// $now, in intervals of $interval ms ($decay: null for none, or EXPONENTIAL,
// LINEAR, STEP). Future items do not decay. The arithmetic is MemEX's, in its
// order, so scores and their ties are exactly memex-python's.
// @params wa wc wi decay now rate interval
MATCH (n:Item)
RETURN /*<value>*/($wa * n.authority + $wc * coalesce(n.conviction, 0.0)
  + $wi * coalesce(n.importance, 0.0))
  * CASE WHEN $decay IS NULL OR n.created_at >= $now THEN 1.0
    WHEN $decay = 'EXPONENTIAL' THEN (1.0 - $rate) ^ (toFloat($now - n.created_at) / $interval)
    WHEN $decay = 'STEP' THEN (1.0 - $rate) ^ floor(toFloat($now - n.created_at) / $interval)
    WHEN 1.0 - $rate * (toFloat($now - n.created_at) / $interval) < 0.0 THEN 0.0
    ELSE 1.0 - $rate * (toFloat($now - n.created_at) / $interval) END/*</value>*/ AS score
