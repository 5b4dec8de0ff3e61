// Sort key: the decay score (shapes/decay_score) at $sort_now with
// $sort_half_life (memexd.memory.filters.order_by fills them).
// @params sort_now sort_half_life
MATCH (n:Item) RETURN n ORDER BY /*<key>*/@decay_score(n, $sort_now, $sort_half_life)/*</key>*/
