// An item's decay score at the instant `now` (epoch ms) with `half_life`
// (ms), both passed in as arguments (SPEC §11, as seed 000 writes it):
// recency × (1 + access) × importance, where recency = exp(-age / half_life)
// with age = now - created_at, never negative; access = ln(1 + count) / 10;
// importance by priority: P0 2, P1 1.5, P2 1, P3 0.5. Computed here so that
// sorting, filtering and archival by it run in the engine; tests/reference.py
// holds the reference it is checked against.
// @shape node now half_life
MATCH (node:Item)
WITH node, 0 AS now, 1.0 AS half_life
RETURN /*<shape>*/exp(-toFloat(CASE WHEN now > node.created_at THEN now - node.created_at
    ELSE 0 END) / half_life)
  * (1.0 + log(1.0 + coalesce(node.access_count, 0)) / 10.0)
  * CASE node.priority WHEN 'P0' THEN 2.0 WHEN 'P1' THEN 1.5 WHEN 'P3' THEN 0.5
    ELSE 1.0 END/*</shape>*/ AS score
