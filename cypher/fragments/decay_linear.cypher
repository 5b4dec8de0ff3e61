// Filter predicate: linear decay multiplier max(0, 1-rate*age) at least $min.
// @params now interval rate min
MATCH (n:Item) WHERE /*<pred>*/CASE WHEN n.created_at >= $now THEN 1.0 WHEN 1.0 - $rate * (toFloat($now - n.created_at) / $interval) < 0.0 THEN 0.0 ELSE 1.0 - $rate * (toFloat($now - n.created_at) / $interval) END >= $min/*</pred>*/ RETURN n
