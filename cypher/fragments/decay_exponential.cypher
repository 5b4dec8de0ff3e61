// Filter predicate: exponential decay multiplier (1-rate)^age at least $min; future items do not decay.
// @params now interval rate min
MATCH (n:Item) WHERE /*<pred>*/CASE WHEN n.created_at >= $now THEN 1.0 ELSE (1.0 - $rate) ^ (toFloat($now - n.created_at) / $interval) END >= $min/*</pred>*/ RETURN n
