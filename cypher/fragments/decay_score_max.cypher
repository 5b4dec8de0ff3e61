// Filter predicate: the decay score (shapes/decay_score) at $now with
// $half_life is at most $value.
// @params value now half_life
MATCH (n:Item) WHERE /*<pred>*/@decay_score(n, $now, $half_life) <= $value/*</pred>*/ RETURN n
