// Filter predicate: step decay multiplier (1-rate)^floor(age) at least $min.
// @params now interval rate min
MATCH (n:Item) WHERE /*<pred>*/CASE WHEN n.created_at >= $now THEN 1.0 ELSE (1.0 - $rate) ^ floor(toFloat($now - n.created_at) / $interval) END >= $min/*</pred>*/ RETURN n
